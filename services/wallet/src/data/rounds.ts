import { newId, runPrepared, type Knex, type Statement } from '@relay/shared';
import { successCtes, type SuccessFacts } from './transactions';

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

/**
 * A successful debit: SUCCESS on the transaction and its attempt, and the round opened, in one
 * statement. Returns false when the roundId already existed (that round is left as it was).
 */
export async function recordDebitSuccess(db: Knex, s: SuccessFacts, r: OpenRound): Promise<boolean> {
  const result = await runPrepared<{ opened: number }>(db, debitSuccessStatement(s, r));
  return result.rows[0].opened > 0;
}

/** The statement behind recordDebitSuccess, exported so tests can check its plan. */
export function debitSuccessStatement(s: SuccessFacts, r: OpenRound): Statement {
  const success = successCtes(s);
  return {
    sql: `WITH ${success.sql},
      opened AS (
        -- Only while this attempt still owns the transaction: an attempt that lost it to a takeover
        -- after the in-flight window must not open a round the winner did not.
        INSERT INTO rounds (id, provider_id, round_id, group_id, game_id, player_id, session_id, currency, language,
                            status, bet_amount, bet_transaction_id, game_data, opened_at, created_at, updated_at)
        SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, 'OPEN', ?, ?, ?::json, now(), now(), now()
        WHERE EXISTS (SELECT 1 FROM tx)
        ON CONFLICT (provider_id, round_id) DO NOTHING
        RETURNING id
      )
    SELECT (SELECT count(*) FROM opened)::int AS opened`,
    bindings: [
      ...success.bindings,
      newId(),
      r.providerId,
      r.roundId,
      r.groupId,
      r.gameId,
      r.playerId,
      r.sessionId,
      r.currency,
      r.language,
      r.betAmount,
      r.betTransactionId,
      r.gameData === undefined ? null : JSON.stringify(r.gameData),
    ],
  };
}

export interface Settlement {
  providerId: string;
  roundId: string;
  groupId: string;
  /**
   * The session's game, which the caller owns now: its rounds are settled even when opened under
   * the provider that owned the game before an operator moved it.
   */
  gameId: number;
  /** Only this player's bet is settled: another player's credit naming the round leaves it alone. */
  playerId: string;
  payoutAmount: string;
  appliedMultiplier: string;
  settleTransactionId: string;
  settleReason: string;
  outcome: string | null;
  settlementData: unknown;
}

export type SettleResult = 'SETTLED' | 'ALREADY_SETTLED' | 'NO_ROUND' | 'NOT_SETTLING';

/**
 * A successful credit: SUCCESS on the transaction and its attempt and, for a reason that settles a
 * bet, the OPEN round settled, in one statement. A settled round keeps its first settlement.
 */
export async function recordCreditSuccess(db: Knex, s: SuccessFacts, settle: Settlement | null): Promise<SettleResult> {
  if (!settle) {
    const success = successCtes(s);
    await runPrepared(db, { sql: `WITH ${success.sql} SELECT 1`, bindings: success.bindings });
    return 'NOT_SETTLING';
  }
  const result = await runPrepared<{ settled: number; existing: number }>(db, settleStatement(s, settle));
  const row = result.rows[0];
  if (row.settled > 0) return 'SETTLED';
  return row.existing > 0 ? 'ALREADY_SETTLED' : 'NO_ROUND';
}

/** The statement behind a settling recordCreditSuccess, exported so tests can check its plan. */
export function settleStatement(s: SuccessFacts, settle: Settlement): Statement {
  const success = successCtes(s);
  return {
    sql: `WITH ${success.sql},
      -- The round by its unique key alone, so that no plan can walk a reporting index instead (an
      -- index on (group_id, ...) would read every round of the game provider); the update below
      -- then goes by primary key. Only the crediting player's own round is settled, of the caller's
      -- game provider or of the session's game (which the caller owns now).
      target AS MATERIALIZED (
        SELECT id, group_id, game_id, player_id FROM rounds WHERE provider_id = ? AND round_id = ?
      ),
      mine AS (SELECT id FROM target WHERE (group_id = ? OR game_id = ?) AND player_id = ?),
      settled AS (
        UPDATE rounds SET status = 'SETTLED', payout_amount = ?, applied_multiplier = ?, settle_transaction_id = ?,
               settle_reason = ?, outcome = ?, settlement_data = ?::json, settled_at = now(), updated_at = now()
        WHERE id = (SELECT id FROM mine) AND status = 'OPEN' AND EXISTS (SELECT 1 FROM tx)
        RETURNING id
      )
    SELECT (SELECT count(*) FROM settled)::int AS settled, (SELECT count(*) FROM mine)::int AS existing`,
    bindings: [
      ...success.bindings,
      settle.providerId,
      settle.roundId,
      settle.groupId,
      settle.gameId,
      settle.playerId,
      settle.payoutAmount,
      settle.appliedMultiplier,
      settle.settleTransactionId,
      settle.settleReason,
      settle.outcome,
      settle.settlementData === undefined ? null : JSON.stringify(settle.settlementData),
    ],
  };
}
