import { uniqueId, type TestPlatform } from '../../../test/platform';
import type { GameWorld, Player } from '../../../test/game';

/** Request bodies and record readers shared by the money route tests. */
export function betBody(g: GameWorld, pl: Player, over: Record<string, unknown> = {}) {
  return {
    sessionId: pl.sessionId,
    gameId: g.gameId,
    currency: pl.currency,
    roundId: uniqueId('round'),
    transactionId: uniqueId('bet'),
    amount: 10,
    ...over,
  };
}

export function winBody(g: GameWorld, pl: Player, bet: { roundId: string; transactionId: string; amount: number }, over: Record<string, unknown> = {}) {
  return {
    sessionId: pl.sessionId,
    gameId: g.gameId,
    currency: pl.currency,
    roundId: bet.roundId,
    transactionId: uniqueId('win'),
    amount: 20,
    reason: 'NORMAL_WIN',
    appliedMultiplier: 2,
    previousTransactionId: bet.transactionId,
    betAmount: bet.amount,
    ...over,
  };
}

export async function transactionRow(p: TestPlatform, g: GameWorld, transactionId: string) {
  return p.db.primary('transactions').where({ provider_id: g.providerId, transaction_id: transactionId }).first();
}

export async function roundRow(p: TestPlatform, g: GameWorld, roundId: string) {
  return p.db.primary('rounds').where({ provider_id: g.providerId, round_id: roundId }).first();
}

export async function attempts(p: TestPlatform, g: GameWorld, transactionId: string) {
  return p.db
    .primary('transaction_attempts as a')
    .join('transactions as t', 't.id', 'a.transaction_pk')
    .where({ 't.provider_id': g.providerId, 't.transaction_id': transactionId })
    .orderBy('a.attempt')
    .select('a.*');
}

export async function countRecords(p: TestPlatform, g: GameWorld): Promise<{ transactions: number; rounds: number }> {
  const [t] = await p.db.primary('transactions').where({ provider_id: g.providerId }).count({ n: '*' });
  const [r] = await p.db.primary('rounds').where({ provider_id: g.providerId }).count({ n: '*' });
  return { transactions: Number(t.n), rounds: Number(r.n) };
}

/** Money movements the casino applied for one transactionId (its journal, not its call log). */
export function applied(g: GameWorld, transactionId: string): number {
  return g.sandbox.journal({ providerId: g.providerId, transactionId }).length;
}
