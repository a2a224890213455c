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

/** How a successful debit left its round. */
export type OpenResult = 'OPENED' | 'OPENED_SETTLED' | 'ALREADY_EXISTED';

/**
 * A successful debit: SUCCESS on the transaction and its attempt, and the round opened, in one
 * statement. A credit that settles this round may have succeeded first (it arrived while the debit
 * was in flight, or the debit is a repeat after a FAILED or abandoned attempt): the round then
 * opens already SETTLED by the earliest such credit, as the credit would have settled it, so an
 * unsettled-looking round never invites a second settlement. A round that already existed is left
 * as it was.
 */
export async function recordDebitSuccess(db: Knex, s: SuccessFacts, r: OpenRound, settlingReasons: readonly string[]): Promise<OpenResult> {
  const result = await runPrepared<{ opened: number; settled: number }>(db, debitSuccessStatement(s, r, settlingReasons));
  const row = result.rows[0];
  if (row.opened === 0) return 'ALREADY_EXISTED';
  return row.settled > 0 ? 'OPENED_SETTLED' : 'OPENED';
}

/** The statement behind recordDebitSuccess, exported so tests can check its plan. */
export function debitSuccessStatement(s: SuccessFacts, r: OpenRound, settlingReasons: readonly string[]): Statement {
  const success = successCtes(s);
  return {
    sql: `WITH ${success.sql},
      -- This round's own records, by (group_id, round_id) and nothing else (a handful of entries);
      -- materialized, so no other condition can lead the planner to a wider reporting index.
      round_records AS MATERIALIZED (
        SELECT id, attempt, transaction_id, category, status, provider_id, player_id, reason, amount, applied_multiplier, completed_at
          FROM transactions WHERE group_id = ? AND round_id = ?
      ),
      settling AS MATERIALIZED (
        SELECT c.transaction_id, c.amount, c.applied_multiplier, c.reason, c.completed_at,
               a.request -> 'game' ->> 'outcome' AS outcome, a.request -> 'game' -> 'settlementData' AS settlement_data
          FROM round_records c
          JOIN transaction_attempts a ON a.transaction_pk = c.id AND a.attempt = c.attempt
         WHERE c.provider_id = ? AND c.player_id = ? AND c.category = 'CASH_IN' AND c.status = 'SUCCESS' AND c.reason = ANY (?::text[])
         ORDER BY c.completed_at, c.transaction_id
         LIMIT 1
      ),
      opened AS (
        -- Only while this attempt still owns the transaction: an attempt that lost it to a takeover
        -- after the in-flight window must not open a round the winner did not.
        INSERT INTO rounds (id, provider_id, round_id, group_id, game_id, player_id, session_id, currency, language,
                            status, bet_amount, bet_transaction_id, game_data,
                            payout_amount, applied_multiplier, settle_transaction_id, settle_reason, outcome, settlement_data, settled_at,
                            opened_at, created_at, updated_at)
        SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, CASE WHEN s.transaction_id IS NULL THEN 'OPEN' ELSE 'SETTLED' END, ?, ?, ?::json,
               s.amount, s.applied_multiplier, s.transaction_id, s.reason, s.outcome, s.settlement_data, s.completed_at,
               now(), now(), now()
          FROM (SELECT 1) AS one LEFT JOIN settling s ON true
         WHERE EXISTS (SELECT 1 FROM tx)
        ON CONFLICT (provider_id, round_id) DO NOTHING
        RETURNING status
      )
    SELECT (SELECT count(*) FROM opened)::int AS opened, (SELECT count(*) FROM opened WHERE status = 'SETTLED')::int AS settled`,
    bindings: [
      ...success.bindings,
      r.groupId,
      r.roundId,
      r.providerId,
      r.playerId,
      [...settlingReasons],
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
