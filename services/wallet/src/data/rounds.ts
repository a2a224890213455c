import { newId, runPrepared, type Knex, type Statement } from '@relay/shared';
import { SUCCESS_CTES, successBindings, type SuccessFacts } from './transactions';

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
 * statement. If a credit settling this bet succeeded first (it recorded itself on the bet's row,
 * which this statement updates), the round opens SETTLED by it, as that credit would have settled
 * it. A round that already existed is left as it was.
 */
export async function recordDebitSuccess(db: Knex, s: SuccessFacts, r: OpenRound): Promise<OpenResult> {
  const result = await runPrepared<{ opened: number; settled: number }>(db, debitSuccessStatement(s, r));
  const row = result.rows[0];
  if (row.opened === 0) return 'ALREADY_EXISTED';
  return row.settled > 0 ? 'OPENED_SETTLED' : 'OPENED';
}

/** The text of debitSuccessStatement (built once: see CLAIM_CTES in ./transactions). */
const DEBIT_SUCCESS_SQL = `WITH ${SUCCESS_CTES},
      -- The credit that settled this bet before it succeeded, by primary key; its outcome and
      -- settlementData from the request its successful attempt recorded, by primary key too. The
      -- credit committed its SUCCESS together with settled_by, possibly after this statement's
      -- snapshot: FOR SHARE reads its latest version, and its status and round are checked after.
      settling AS (
        SELECT c.transaction_id, c.status, c.round_id, c.amount, c.applied_multiplier, c.reason, c.completed_at,
               (SELECT a.request -> 'game' ->> 'outcome' FROM transaction_attempts a
                 WHERE a.transaction_pk = c.id AND a.attempt = c.attempt AND a.transaction_created_at = c.created_at) AS outcome,
               (SELECT a.request -> 'game' -> 'settlementData' FROM transaction_attempts a
                 WHERE a.transaction_pk = c.id AND a.attempt = c.attempt AND a.transaction_created_at = c.created_at) AS settlement_data
          FROM transactions c
         WHERE c.id = (SELECT settled_by FROM tx) AND c.created_at = (SELECT settled_by_at FROM tx)
           FOR SHARE OF c
      ),
      -- The round's key: its uniqueness, which the monthly partitions of rounds cannot hold.
      rk AS (
        INSERT INTO round_keys (provider_id, round_id, id, created_at)
        SELECT ?, ?, ?, now() WHERE EXISTS (SELECT 1 FROM tx)
        ON CONFLICT (provider_id, round_id) DO NOTHING
        RETURNING id, created_at
      ),
      opened AS (
        -- Only while this attempt still owns the transaction: an attempt that lost it to a takeover
        -- after the in-flight window must not open a round the winner did not.
        INSERT INTO rounds (id, provider_id, round_id, group_id, game_id, player_id, session_id, currency, language,
                            status, bet_amount, bet_transaction_id, game_data,
                            payout_amount, applied_multiplier, settle_transaction_id, settle_reason, outcome, settlement_data, settled_at,
                            opened_at, created_at, updated_at)
        SELECT rk.id, ?, ?, ?, ?, ?, ?, ?, ?, CASE WHEN s.transaction_id IS NULL THEN 'OPEN' ELSE 'SETTLED' END, ?, ?, ?::json,
               s.amount, s.applied_multiplier, s.transaction_id, s.reason, s.outcome, s.settlement_data, s.completed_at,
               now(), rk.created_at, now()
          FROM rk LEFT JOIN settling s ON s.status = 'SUCCESS' AND s.round_id = ?
        RETURNING status
      )
    SELECT (SELECT count(*) FROM opened)::int AS opened, (SELECT count(*) FROM opened WHERE status = 'SETTLED')::int AS settled`;

/** The statement behind recordDebitSuccess, exported so tests can check its plan. */
export function debitSuccessStatement(s: SuccessFacts, r: OpenRound): Statement {
  return {
    sql: DEBIT_SUCCESS_SQL,
    bindings: [
      ...successBindings(s),
      r.providerId,
      r.roundId,
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
      r.roundId,
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
  /** The bet this credit settles: told of it when its round is not open yet (see settled_by in libs/ledger/src/schema/ledger.ts). */
  previousTransactionId: string | null;
  payoutAmount: string;
  appliedMultiplier: string;
  settleTransactionId: string;
  settleReason: string;
  outcome: string | null;
  settlementData: unknown;
}

/** SETTLES_WHEN_BET_SUCCEEDS: no round yet, the bet not (yet) successful; it opens settled by this credit. */
export type SettleResult = 'SETTLED' | 'ALREADY_SETTLED' | 'SETTLES_WHEN_BET_SUCCEEDS' | 'NO_ROUND' | 'ROUND_NOT_CHECKED' | 'NOT_SETTLING';

const CREDIT_SUCCESS_SQL = `WITH ${SUCCESS_CTES} SELECT 1`;

/** A successful credit that settles nothing (its reason settles no bet); exported so tests can check its plan. */
export function creditSuccessStatement(s: SuccessFacts): Statement {
  return { sql: CREDIT_SUCCESS_SQL, bindings: successBindings(s) };
}

/**
 * A successful credit: SUCCESS on the transaction and its attempt and, for a reason that settles a
 * bet, the OPEN round settled, in one statement. A settled round keeps its first settlement.
 */
export async function recordCreditSuccess(
  db: Knex,
  s: SuccessFacts,
  settle: Settlement | null,
  onRoundNotChecked: (err: unknown) => void = () => undefined,
): Promise<SettleResult> {
  if (!settle) {
    await runPrepared(db, creditSuccessStatement(s));
    return 'NOT_SETTLING';
  }
  const result = await runPrepared<{ settled: number; existing: number; early: number }>(db, settleStatement(s, settle));
  const row = result.rows[0];
  if (row.settled > 0) return 'SETTLED';
  if (row.existing > 0) return 'ALREADY_SETTLED';
  if (row.early > 0) return 'SETTLES_WHEN_BET_SUCCEEDS';
  if (settle.previousTransactionId === null) return 'NO_ROUND';
  // The bet may have succeeded and opened its round just after this statement's snapshot (it then
  // no longer took the early record): look for the round once more, in a snapshot of its own.
  // This credit's SUCCESS is committed already: a failure here must not turn its answer into an
  // error (the game's repeat would be a replay that runs nothing), so it is logged by the caller.
  try {
    const late = await runPrepared<{ settled: number; existing: number }>(db, lateSettleStatement(s, settle));
    if (late.rows[0].settled > 0) return 'SETTLED';
    return late.rows[0].existing > 0 ? 'ALREADY_SETTLED' : 'NO_ROUND';
  } catch (err) {
    onRoundNotChecked(err);
    return 'ROUND_NOT_CHECKED';
  }
}

/**
 * The round-settling part of settleStatement and lateSettleStatement, by unique keys: the same
 * round, the same player, settled only when `gate` holds; SETTLE_COUNTS selects how many rounds it
 * settled and found.
 */
function settleRoundCtes(gate: string): string {
  return `-- The round by its unique key alone, so that no plan can walk a reporting index instead (an
      -- index on (group_id, ...) would read every round of the game provider); the update below
      -- then goes by the round's own key. Only the crediting player's own round is settled, of the
      -- caller's game provider or of the session's game (which the caller owns now).
      -- Its key leads to its one partition (a round whose month was archived is not found).
      target AS MATERIALIZED (
        SELECT r.id, r.created_at, r.provider_id, r.group_id, r.game_id, r.player_id
          FROM round_keys k JOIN rounds r ON r.id = k.id AND r.created_at = k.created_at
         WHERE k.provider_id = ? AND k.round_id = ?
      ),
      mine AS (SELECT id, created_at, provider_id, group_id FROM target WHERE (group_id = ? OR game_id = ?) AND player_id = ?),
      -- The update binds the round's provider_id and group_id beside its key (id, created_at): every
      -- index of rounds that holds the key then has its leading columns bound, and is a point lookup
      -- whichever one a plan picks. Bound by id and created_at alone, a generic plan made while the
      -- partition was nearly empty walked the open rounds' index (group_id, created_at DESC, id)
      -- WHERE status = 'OPEN' whole (every open round of the month, and the entries of those since
      -- settled) for each settlement. Both columns are the round's own, never changed once written.
      settled AS (
        UPDATE rounds SET status = 'SETTLED', payout_amount = ?, applied_multiplier = ?, settle_transaction_id = ?,
               settle_reason = ?, outcome = ?, settlement_data = ?::json, settled_at = now(), updated_at = now()
        WHERE id = (SELECT id FROM mine) AND created_at = (SELECT created_at FROM mine)
          AND provider_id = (SELECT provider_id FROM mine) AND group_id = (SELECT group_id FROM mine)
          AND status = 'OPEN' AND ${gate}
        RETURNING id
      )`;
}

const SETTLE_COUNTS = '(SELECT count(*) FROM settled)::int AS settled, (SELECT count(*) FROM mine)::int AS existing';

/** settleRoundCtes's bindings. */
function settleRoundBindings(settle: Settlement): Knex.RawBinding[] {
  return [
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
  ];
}

const LATE_SETTLE_SQL = `WITH ${settleRoundCtes(`EXISTS (SELECT 1 FROM transactions WHERE id = ? AND created_at = ?::timestamptz AND attempt = ? AND status = 'SUCCESS')`)}
    SELECT ${SETTLE_COUNTS}`;

/** The second look of recordCreditSuccess (only while this attempt's SUCCESS still stands); exported for its plan test. */
export function lateSettleStatement(s: SuccessFacts, settle: Settlement): Statement {
  return { sql: LATE_SETTLE_SQL, bindings: [...settleRoundBindings(settle), s.claim.pk, s.claim.createdAt, s.claim.attempt] };
}

const SETTLE_SQL = `WITH ${SUCCESS_CTES},
      ${settleRoundCtes('EXISTS (SELECT 1 FROM tx)')},
      -- No round at all yet: the bet has not succeeded (it is in flight, or FAILED or abandoned and
      -- may be repeated). This credit records itself on the bet, by the bet's unique key, so the
      -- round opens settled by it if the bet ever succeeds (see settled_by in libs/ledger/src/schema/ledger.ts).
      early AS (
        UPDATE transactions b SET settled_by = ?, settled_by_at = ?::timestamptz, updated_at = now()
          FROM transaction_keys bk
        WHERE bk.provider_id = ? AND bk.transaction_id = ? AND b.id = bk.id AND b.created_at = bk.created_at
          AND b.category = 'CASH_OUT' AND b.player_id = ?
          AND (b.group_id = ? OR b.game_id = ?) AND b.round_id = ?
          AND b.status <> 'SUCCESS' AND b.settled_by IS NULL
          AND NOT EXISTS (SELECT 1 FROM round_keys WHERE provider_id = ? AND round_id = ?) AND EXISTS (SELECT 1 FROM tx)
        RETURNING b.id
      )
    SELECT ${SETTLE_COUNTS}, (SELECT count(*) FROM early)::int AS early`;

/** The statement behind a settling recordCreditSuccess, exported so tests can check its plan. */
export function settleStatement(s: SuccessFacts, settle: Settlement): Statement {
  return {
    sql: SETTLE_SQL,
    bindings: [
      ...successBindings(s),
      ...settleRoundBindings(settle),
      s.claim.pk,
      s.claim.createdAt,
      settle.providerId,
      settle.previousTransactionId,
      settle.playerId,
      settle.groupId,
      settle.gameId,
      settle.roundId,
      settle.providerId,
      settle.roundId,
    ],
  };
}
