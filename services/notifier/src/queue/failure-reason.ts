import { isDeliveryErrorCode, type DeliveryErrorCode } from '../domain/delivery';

/**
 * A failed job carries only a text (BullMQ's failedReason); the worker writes the relay code in
 * front of the message so the waiting request can answer with it.
 */
export function failureReason(code: DeliveryErrorCode, message: string): string {
  return `${code}: ${message}`;
}

const STALLED_REASON = 'job stalled more than allowable limit';

export function readFailureReason(reason: string | undefined): { code: DeliveryErrorCode; message: string } {
  const match = /^([A-Z_]+): ([\s\S]*)$/.exec(reason ?? '');
  if (match && isDeliveryErrorCode(match[1])) return { code: match[1], message: match[2] };
  if (reason?.includes(STALLED_REASON)) {
    // Workers died mid-delivery again and again: the casino may or may not have been notified.
    return { code: 'INTEGRATION_TIMED_OUT', message: 'The delivery was interrupted; the casino may or may not have been notified' };
  }
  return { code: 'INTERNAL_ERROR', message: 'The delivery failed inside the relay' };
}
