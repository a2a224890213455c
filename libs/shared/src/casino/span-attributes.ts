import type { CasinoOperation } from './protocol';

/**
 * OpenTelemetry HTTP client attributes of a casino call (semantic conventions: http.request.method,
 * url.full, server.address, server.port). The wallet URL is operator input and may carry
 * credentials: url.full never holds its user, password, query or fragment, only scheme, host,
 * port and path. The player's wallet token travels in the body and never reaches a span.
 */
export function casinoSpanAttributes(walletUrl: string, operation: CasinoOperation): Record<string, string | number> {
  let url: URL;
  try {
    url = new URL(walletUrl);
  } catch {
    return { 'http.request.method': 'POST' };
  }
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return {
    'http.request.method': 'POST',
    'url.full': `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}/${operation}`,
    'server.address': url.hostname,
    'server.port': port,
  };
}
