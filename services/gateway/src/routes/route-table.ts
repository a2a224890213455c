import type { ServiceName } from '@relay/shared';

export type Audience = 'public' | 'admin' | 'provider' | 'backoffice';

/** Which service serves a path, and who may call it. Paths are forwarded unchanged. */
export function audienceFor(path: string): Audience | null {
  if (path === '/launch') return 'public';
  if (path === '/admin/v1' || path.startsWith('/admin/v1/')) return 'admin';
  if (path.startsWith('/api/')) return 'provider';
  if (path === '/backoffice/v1' || path.startsWith('/backoffice/v1/')) return 'backoffice';
  return null;
}

const PREFIXES: [string, ServiceName][] = [
  ['/launch', 'launcher'],
  ['/admin/v1/', 'admin'],
  ['/backoffice/v1/', 'backoffice'],
  ['/api/v1/sessions/', 'wallet'],
  ['/api/account', 'wallet'],
  ['/api/balance/', 'wallet'],
  ['/api/round-ended', 'notifier'],
  ['/api/v1/rounds', 'reporting'],
  ['/api/v1/transactions', 'reporting'],
  ['/api/v1/providers/', 'reporting'],
  ['/api/v1/provider-catalog', 'reporting'],
];

export function serviceFor(path: string): ServiceName | null {
  for (const [prefix, service] of PREFIXES) {
    if (path === prefix || path.startsWith(prefix) || (prefix.endsWith('/') && path === prefix.slice(0, -1))) {
      // '/api/accounts' must not match '/api/account': the next character ends a segment.
      const next = path.charAt(prefix.length);
      if (prefix.endsWith('/') || next === '' || next === '/' || next === '?') return service;
    }
  }
  return null;
}
