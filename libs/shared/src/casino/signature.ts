import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Request signing of the casino wallet protocol (docs/api/casino.json): `v1=` + hex HMAC-SHA256 keyed with
 * the casino's walletSecret over `${timestamp}.${exact body bytes}`. The casino verifies the bytes
 * it received, so the relay signs exactly the bytes it sends.
 */
export const TIMESTAMP_HEADER = 'x-relay-timestamp';
export const SIGNATURE_HEADER = 'x-relay-signature';
/** Casinos may refuse a timestamp older than this. */
export const SIGNATURE_MAX_SKEW_SECONDS = 300;

export function signCasinoRequest(secret: string, timestamp: number | string, body: string | Uint8Array): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(body);
  return `v1=${mac.digest('hex')}`;
}

export type SignatureProblem = 'missing' | 'malformed' | 'stale' | 'mismatch';

export interface VerifyOptions {
  maxSkewSeconds?: number;
  /** Injected clock for tests; Unix seconds. */
  nowSeconds?: number;
}

/** Why a signed casino request must be refused, or null when it is authentic and fresh. */
export function casinoSignatureProblem(
  secret: string,
  timestamp: string | undefined,
  body: string | Uint8Array,
  signature: string | undefined,
  options: VerifyOptions = {},
): SignatureProblem | null {
  if (!timestamp || !signature) return 'missing';
  if (!/^\d{1,12}$/.test(timestamp) || !/^v1=[0-9a-f]{64}$/.test(signature)) return 'malformed';
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  // Symmetric: a timestamp far in the future is as suspicious as a replayed old one.
  if (Math.abs(now - Number(timestamp)) > (options.maxSkewSeconds ?? SIGNATURE_MAX_SKEW_SECONDS)) return 'stale';
  const expected = Buffer.from(signCasinoRequest(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given) ? null : 'mismatch';
}

export function verifyCasinoSignature(
  secret: string,
  timestamp: string | undefined,
  body: string | Uint8Array,
  signature: string | undefined,
  options: VerifyOptions = {},
): boolean {
  return casinoSignatureProblem(secret, timestamp, body, signature, options) === null;
}
