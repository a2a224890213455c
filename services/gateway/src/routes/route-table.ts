import type { ServiceName } from '@relay/shared';

export type Audience = 'public' | 'admin' | 'provider' | 'backoffice';

/** Which service serves a path, and who may call it. Paths are forwarded unchanged. */
export function audienceFor(path: string): Audience | null {
  if (path === '/launch') return 'public';
  // The API reference (routes/docs.ts), answered by the gateway itself before authentication.
  if (path === '/docs' || path.startsWith('/docs/') || path.startsWith('/openapi/')) return 'public';
  if (path === '/admin/v1' || path.startsWith('/admin/v1/')) return 'admin';
  if (path.startsWith('/api/')) return 'provider';
  if (path === '/backoffice/v1' || path.startsWith('/backoffice/v1/')) return 'backoffice';
  // The web console's static files (served by the back office); its API calls carry the session.
  if (path === '/console' || path.startsWith('/console/')) return 'public';
  return null;
}

/**
 * The public routes by prefix, each with the template that names it in metrics, spans and logs:
 * never the path itself, which carries session ids and other per-request values.
 */
const PREFIXES: { prefix: string; service: ServiceName; template: string }[] = [
  { prefix: '/launch', service: 'launcher', template: '/launch' },
  // The API reference (routes/docs.ts): answered by the gateway itself before this table is read.
  { prefix: '/docs', service: 'gateway', template: '/docs' },
  { prefix: '/openapi/', service: 'gateway', template: '/openapi/*' },
  { prefix: '/admin/v1/', service: 'admin', template: '/admin/v1/*' },
  { prefix: '/backoffice/v1/', service: 'backoffice', template: '/backoffice/v1/*' },
  { prefix: '/console', service: 'backoffice', template: '/console/*' },
  { prefix: '/api/v1/sessions/', service: 'wallet', template: '/api/v1/sessions/:sessionId' },
  { prefix: '/api/account', service: 'wallet', template: '/api/account' },
  { prefix: '/api/balance/', service: 'wallet', template: '/api/balance/*' },
  { prefix: '/api/round-ended', service: 'notifier', template: '/api/round-ended' },
  { prefix: '/api/v1/rounds', service: 'reporting', template: '/api/v1/rounds/:providerId/:roundId' },
  { prefix: '/api/v1/transactions', service: 'reporting', template: '/api/v1/transactions/:providerId/:transactionId' },
  { prefix: '/api/v1/providers/', service: 'reporting', template: '/api/v1/providers/*' },
  { prefix: '/api/v1/provider-catalog', service: 'reporting', template: '/api/v1/provider-catalog' },
];

/** Paths served as they are: their own name is their template. */
const EXACT = new Set(['/api/balance/cash-out', '/api/balance/cash-in', '/api/balance/cash-in/retry', '/api/v1/rounds', '/api/v1/transactions', '/api/v1/providers/ids']);

/** Paths under a prefix that are routes of their own: their template, so metrics and logs tell them apart. */
const NESTED: { pattern: RegExp; template: string }[] = [
  { pattern: /^\/api\/v1\/sessions\/[^/]+\/free-rounds$/, template: '/api/v1/sessions/:sessionId/free-rounds' },
];

export interface PublicRoute {
  service: ServiceName;
  template: string;
}

export function routeFor(path: string): PublicRoute | null {
  for (const { prefix, service, template } of PREFIXES) {
    if (path === prefix || path.startsWith(prefix) || (prefix.endsWith('/') && path === prefix.slice(0, -1))) {
      // '/api/accounts' must not match '/api/account': the next character ends a segment.
      const next = path.charAt(prefix.length);
      if (prefix.endsWith('/') || next === '' || next === '/' || next === '?') return { service, template: EXACT.has(path) ? path : (NESTED.find((n) => n.pattern.test(path))?.template ?? template) };
    }
  }
  return null;
}

export function serviceFor(path: string): ServiceName | null {
  return routeFor(path)?.service ?? null;
}
