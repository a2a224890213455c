/** The spec's cash-in reason table. */
export const CASH_IN_REASONS = [
  'NORMAL_WIN',
  'BET_LOST',
  'FREEBET_WIN',
  'FREEBET_LOST',
  'REVERSE_FUND',
  'ROUND_CHANGED',
  'PHASE_CHANGED',
  'TIMEOUT_EXCEEDED',
  'CASHOUT_FAILED',
  'INTEGRATION_TIMED_OUT',
  'INTERNAL_ERROR',
  'DISCONNECT_REVERSE_FUND',
  'DISCONNECT_NORMAL_WIN',
  'DISCONNECT_FREEBET_WIN',
] as const;

export type CashInReason = (typeof CASH_IN_REASONS)[number];

/** Reasons that settle a bet (they carry previousTransactionId) and so settle the round record. */
export const SETTLES_A_BET: ReadonlySet<CashInReason> = new Set<CashInReason>([
  'NORMAL_WIN',
  'BET_LOST',
  'REVERSE_FUND',
  'ROUND_CHANGED',
  'PHASE_CHANGED',
  'TIMEOUT_EXCEEDED',
  'CASHOUT_FAILED',
  'INTEGRATION_TIMED_OUT',
  'INTERNAL_ERROR',
]);

/** Reasons a casino must have switched on (spec: "only when the casino has ... enabled"). */
export function reasonAllowedFor(reason: CashInReason, casino: { refundOnCreditFail: boolean; creditOnDisconnect: boolean }): boolean {
  if (reason === 'CASHOUT_FAILED') return casino.refundOnCreditFail;
  if (reason.startsWith('DISCONNECT_')) return casino.creditOnDisconnect;
  return true;
}
