import type { Request } from 'express';
import ipaddr from 'ipaddr.js';

/**
 * The key a client's per-address limits are counted under. An IPv4 address is one client (an
 * IPv4-mapped IPv6 address is its IPv4 address); an IPv6 client usually holds a whole /64 and may
 * send from any of its 2^64 addresses, so a limit keyed on the full address would be a limit on
 * nothing: it is counted on the /64. Anything else (no address known) is kept as it is.
 */
export function clientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}

/**
 * The caller's address (the socket's, or the one a trusted proxy in front of us saw), as the key
 * its limits are counted under: an IPv6 caller by its /64, which it controls whole.
 */
export function clientAddress(req: Request): string {
  return clientKey(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}
