import type { MovementRecord } from '../src/data/transactions';

/** Whose records a data-level test writes: its own casino, game provider, game and player. */
export interface RecordOwner {
  providerId: string;
  groupId: string;
  gameId: number;
  playerId: string;
}

/** A well-formed movement record for the wallet's statements: a 10.00 bet, or a NORMAL_WIN credit. */
export function movementRecord(owner: RecordOwner, category: 'CASH_OUT' | 'CASH_IN', transactionId: string, roundId: string, over: Partial<MovementRecord> = {}): MovementRecord {
  return {
    ...owner,
    transactionId,
    previousTransactionId: null,
    category,
    sessionId: 's',
    roundId,
    amount: '10.00',
    currency: 'EUR',
    language: 'en',
    reason: category === 'CASH_IN' ? 'NORMAL_WIN' : null,
    appliedMultiplier: category === 'CASH_IN' ? '2' : null,
    betAmount: '10.00',
    awardId: null,
    campaignId: null,
    isLastFreebet: null,
    isRetry: false,
    ...over,
  };
}
