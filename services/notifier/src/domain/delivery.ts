import { AppError } from '@relay/shared';

/** The relay codes one casino's round-ended delivery can end with (docs/api/casino.json, round-ended column). */
export const DELIVERY_ERROR_CODES = [
  'INTEGRATION_TIMED_OUT',
  'PROVIDER_API_FAILURE',
  'INTERNAL_ERROR',
  'AUTHENTICATION_TOKEN_EXPIRED',
  'PROVIDER_NOT_ACTIVE',
  'PROVIDER_NOT_FOUND',
] as const;

export type DeliveryErrorCode = (typeof DELIVERY_ERROR_CODES)[number];

export function isDeliveryErrorCode(code: string): code is DeliveryErrorCode {
  return (DELIVERY_ERROR_CODES as readonly string[]).includes(code);
}

/** One casino notified that a round ended, or why it was not. */
export type Delivery =
  | { providerId: string; ok: true }
  | { providerId: string; ok: false; code: DeliveryErrorCode; message: string };

export type FailedDelivery = Extract<Delivery, { ok: false }>;

/**
 * When several casinos fail, the caller gets one code. Repeat-worthy failures win over final ones:
 * a game that repeats the (idempotent) call after a 408 or 502 reaches the casinos that can still
 * be reached, while a game told 403 would stop and leave a timed-out casino un-notified.
 * DELIVERY_ERROR_CODES is in that order: time-out (maybe delivered), casino failure, our own
 * failure, then the casino's refusal and casinos deactivated or removed meanwhile.
 */
export function deliveryFailure(deliveries: Delivery[]): AppError | null {
  const failed = deliveries.filter((d): d is FailedDelivery => !d.ok);
  if (failed.length === 0) return null;
  const rank = (d: FailedDelivery) => DELIVERY_ERROR_CODES.indexOf(d.code);
  const winner = failed.reduce((best, d) => (rank(d) < rank(best) ? d : best));
  if (failed.length === 1) return new AppError(winner.code, `Casino ${winner.providerId} was not notified: ${winner.message}`);
  const list = failed.map((d) => `${d.providerId} (${d.code})`).join(', ');
  const notified = deliveries.length - failed.length;
  return new AppError(winner.code, `${failed.length} casinos were not notified: ${list}; ${notified} notified`);
}
