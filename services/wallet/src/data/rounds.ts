import { newId, type Knex } from '@relay/shared';

export interface OpenRound {
  providerId: string;
  roundId: string;
  groupId: string;
  gameId: number;
  playerId: string;
  sessionId: string;
  currency: string;
  language: string;
  betAmount: string;
  betTransactionId: string;
  gameData: unknown;
}

/** Opens the round of a successful debit; false when the roundId already exists (left as it was). */
export async function openRound(trx: Knex.Transaction, r: OpenRound): Promise<boolean> {
  const inserted = await trx('rounds')
    .insert({
      id: newId(),
      provider_id: r.providerId,
      round_id: r.roundId,
      group_id: r.groupId,
      game_id: r.gameId,
      player_id: r.playerId,
      session_id: r.sessionId,
      currency: r.currency,
      language: r.language,
      status: 'OPEN',
      bet_amount: r.betAmount,
      bet_transaction_id: r.betTransactionId,
      game_data: r.gameData === undefined ? null : JSON.stringify(r.gameData),
      opened_at: trx.fn.now(),
    })
    .onConflict(['provider_id', 'round_id'])
    .ignore()
    .returning('id');
  return inserted.length > 0;
}

export interface Settlement {
  providerId: string;
  roundId: string;
  groupId: string;
  payoutAmount: string;
  appliedMultiplier: string;
  settleTransactionId: string;
  settleReason: string;
  outcome: string | null;
  settlementData: unknown;
}

export type SettleResult = 'SETTLED' | 'ALREADY_SETTLED' | 'NO_ROUND';

/** Settles an OPEN round; a settled round keeps its first settlement. */
export async function settleRound(trx: Knex.Transaction, s: Settlement): Promise<SettleResult> {
  const updated = await trx('rounds')
    .where({ provider_id: s.providerId, round_id: s.roundId, group_id: s.groupId, status: 'OPEN' })
    .update({
      status: 'SETTLED',
      payout_amount: s.payoutAmount,
      applied_multiplier: s.appliedMultiplier,
      settle_transaction_id: s.settleTransactionId,
      settle_reason: s.settleReason,
      outcome: s.outcome,
      settlement_data: s.settlementData === undefined ? null : JSON.stringify(s.settlementData),
      settled_at: trx.fn.now(),
      updated_at: trx.fn.now(),
    })
    .returning('id');
  if (updated.length > 0) return 'SETTLED';
  const existing = await trx('rounds').where({ provider_id: s.providerId, round_id: s.roundId, group_id: s.groupId }).first('status');
  return existing ? 'ALREADY_SETTLED' : 'NO_ROUND';
}
