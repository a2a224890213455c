/**
 * The wallet's transactions statements as the release before 007_ledger_partitions ran them (git show
 * 1ea050e~1:services/wallet/src/data/transactions.ts, unchanged below this comment): the live migration
 * test runs them against the old tables while migrate-live prepares them.
 */
import { createHash } from 'node:crypto';
import { newId, runPrepared, type Knex, type Statement } from '@relay/shared';

export type Category = 'CASH_OUT' | 'CASH_IN';
export type TransactionStatus = 'PENDING' | 'SUCCESS' | 'FAILED';

/** What a money call asks for, as recorded on its transaction before the casino is called. */
export interface MovementRecord {
  providerId: string;
  transactionId: string;
  previousTransactionId: string | null;
  category: Category;
  groupId: string;
  gameId: number;
  playerId: string;
  sessionId: string;
  roundId: string;
  amount: string;
  currency: string;
  language: string;
  reason: string | null;
  appliedMultiplier: string | null;
  betAmount: string | null;
  awardId: string | null;
  campaignId: string | null;
  isLastFreebet: boolean | null;
  isRetry: boolean;
}

export interface Claim {
  pk: string;
  attempt: number;
}

export interface ExistingTransaction {
  pk: string;
  status: TransactionStatus;
  category: Category;
  groupId: string;
  gameId: number;
  playerId: string;
  balance: string | null;
  username: string | null;
  ageSeconds: number;
}

const COLUMNS: [keyof MovementRecord, string][] = [
  ['providerId', 'provider_id'],
  ['transactionId', 'transaction_id'],
  ['previousTransactionId', 'previous_transaction_id'],
  ['category', 'category'],
  ['groupId', 'group_id'],
  ['gameId', 'game_id'],
  ['playerId', 'player_id'],
  ['sessionId', 'session_id'],
  ['roundId', 'round_id'],
  ['amount', 'amount'],
  ['currency', 'currency'],
  ['language', 'language'],
  ['reason', 'reason'],
  ['appliedMultiplier', 'applied_multiplier'],
  ['betAmount', 'bet_amount'],
  ['awardId', 'award_id'],
  ['campaignId', 'campaign_id'],
  ['isLastFreebet', 'is_last_freebet'],
  ['isRetry', 'is_retry'],
];

// Columns a fresh attempt rewrites (the identity of the transaction, its keys, stays).
const REWRITTEN = COLUMNS.map(([, c]) => c).filter((c) => !['provider_id', 'transaction_id', 'category', 'group_id'].includes(c));

/**
 * The idempotency claim of a new transactionId, as ONE atomic statement: insert the transaction as
 * PENDING and, in the same statement, append the attempt to the audit log. It returns a row only
 * to the one caller that inserted it; concurrent identical requests can never both reach the
 * casino. When the transactionId exists it does nothing at all: no row lock, no transaction id,
 * no WAL, so a replay of a SUCCESS costs reads only (its answer is then read by findTransaction).
 */
export async function claimTransaction(db: Knex, m: MovementRecord, request: object): Promise<Claim | null> {
  const result = await runPrepared<Claim>(db, claimStatement(m, request));
  return result.rows[0] ?? null;
}

/** The statement behind claimTransaction, exported so tests can check its plan. */
export function claimStatement(m: MovementRecord, request: object): Statement {
  const values = COLUMNS.map(([k]) => m[k]);
  const placeholders = COLUMNS.map(() => '?').join(', ');
  const sql = `
    WITH claimed AS (
      INSERT INTO transactions (id, ${COLUMNS.map(([, c]) => c).join(', ')}, status, request_fingerprint, attempt, claimed_at, created_at, updated_at)
      VALUES (?, ${placeholders}, 'PENDING', ?, 1, now(), now(), now())
      ON CONFLICT (provider_id, transaction_id) DO NOTHING
      RETURNING id, attempt
    )
    INSERT INTO transaction_attempts (transaction_pk, attempt, request, started_at)
    SELECT id, attempt, ?::json, now() FROM claimed
    RETURNING transaction_pk AS pk, attempt`;
  return { sql, bindings: [newId(), ...values, fingerprint(request), JSON.stringify(request)] };
}

/**
 * Takes over a transactionId whose last attempt FAILED or whose PENDING attempt is older than the
 * in-flight window, as ONE atomic statement: the row is re-checked under its lock, so of several
 * concurrent repeats exactly one wins and appends its attempt; the others get no row.
 */
export async function takeOverTransaction(db: Knex, pk: string, m: MovementRecord, request: object, inFlightSeconds: number): Promise<Claim | null> {
  const result = await runPrepared<Claim>(db, takeOverStatement(pk, m, request, inFlightSeconds));
  return result.rows[0] ?? null;
}

/** By the primary key findTransaction read: the row is reached by a unique key whatever the planner knows. */
export function takeOverStatement(pk: string, m: MovementRecord, request: object, inFlightSeconds: number): Statement {
  const rewritten = COLUMNS.filter(([, c]) => REWRITTEN.includes(c));
  const sql = `
    WITH claimed AS (
      UPDATE transactions SET
        ${rewritten.map(([, c]) => `${c} = ?`).join(', ')},
        status = 'PENDING', request_fingerprint = ?,
        attempt = attempt + 1, claimed_at = now(), updated_at = now(),
        balance = NULL, username = NULL, error_code = NULL, error_message = NULL, completed_at = NULL
      WHERE id = ?
        -- The same movement: same player and category, and the caller's group, or the game (which
        -- the caller owns now: a game moved to another provider takes its open attempts with it).
        AND (group_id = ? OR game_id = ?)
        AND category = ?
        AND player_id = ?
        AND (status = 'FAILED' OR (status = 'PENDING' AND claimed_at <= now() - make_interval(secs => ?)))
      RETURNING id, attempt
    )
    INSERT INTO transaction_attempts (transaction_pk, attempt, request, started_at)
    SELECT id, attempt, ?::json, now() FROM claimed
    RETURNING transaction_pk AS pk, attempt`;
  return {
    sql,
    bindings: [
      ...rewritten.map(([k]) => m[k]),
      fingerprint(request),
      pk,
      m.groupId,
      m.gameId,
      m.category,
      m.playerId,
      inFlightSeconds,
      JSON.stringify(request),
    ],
  };
}

/** The record of a transactionId, as a named prepared statement: every replay runs it. */
export function findStatement(providerId: string, transactionId: string): Statement {
  return {
    sql: `SELECT id, status, category, group_id, game_id, player_id, balance, username,
                 extract(epoch from (now() - claimed_at))::float8 AS age_seconds
            FROM transactions WHERE provider_id = ? AND transaction_id = ?`,
    bindings: [providerId, transactionId],
  };
}

export async function findTransaction(db: Knex, providerId: string, transactionId: string): Promise<ExistingTransaction | null> {
  const row = (await runPrepared<Record<string, any>>(db, findStatement(providerId, transactionId))).rows[0];
  if (!row) return null;
  return {
    pk: row.id,
    status: row.status,
    category: row.category,
    groupId: row.group_id,
    gameId: row.game_id,
    playerId: row.player_id,
    balance: row.balance,
    username: row.username,
    ageSeconds: Number(row.age_seconds),
  };
}

export interface CasinoOutcome {
  casinoStatus?: number;
  casinoBody?: string;
}

export interface SuccessFacts {
  claim: Claim;
  balance: string;
  username: string | null;
  casinoStatus: number;
  casinoBody: string;
}

/**
 * The first two parts of every success statement: the transaction becomes SUCCESS (only if this
 * attempt still owns it; it returns the credit that settled a bet early, see 003_early_settlement)
 * and its attempt row records the casino's answer. Callers add the round effect as a third
 * data-modifying CTE, so the whole outcome commits atomically in one round trip.
 */
export function successCtes(s: SuccessFacts): Statement {
  return {
    sql: `tx AS (
        UPDATE transactions SET status = 'SUCCESS', balance = ?, username = ?, completed_at = now(), updated_at = now()
        WHERE id = ? AND attempt = ? AND status = 'PENDING' RETURNING id, settled_by
      ),
      att AS (
        UPDATE transaction_attempts SET outcome = 'SUCCESS', casino_status = ?, casino_body = ?, finished_at = now()
        WHERE transaction_pk = ? AND attempt = ? RETURNING attempt
      )`,
    bindings: [s.balance, s.username, s.claim.pk, s.claim.attempt, s.casinoStatus, s.casinoBody, s.claim.pk, s.claim.attempt],
  };
}

/** Records the casino's failure on the transaction and its attempt, in one statement. */
export async function markFailed(db: Knex, claim: Claim, errorCode: string, errorMessage: string, outcome: CasinoOutcome): Promise<void> {
  await runPrepared(db, {
    sql: `WITH tx AS (
        UPDATE transactions SET status = 'FAILED', error_code = ?, error_message = ?, completed_at = now(), updated_at = now()
        WHERE id = ? AND attempt = ? AND status = 'PENDING' RETURNING id
      )
    UPDATE transaction_attempts SET outcome = 'FAILED', error_code = ?, error_message = ?, casino_status = ?, casino_body = ?, finished_at = now()
    WHERE transaction_pk = ? AND attempt = ?`,
    bindings: [errorCode, errorMessage, claim.pk, claim.attempt, errorCode, errorMessage, outcome.casinoStatus ?? null, outcome.casinoBody ?? null, claim.pk, claim.attempt],
  });
}

function fingerprint(request: object): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}

export interface AbandonedTransactions {
  groupId: string;
  providerId: string;
  category: Category;
  count: number;
  oldestSeconds: number;
}

/**
 * PENDING transactions older than the in-flight window, by game provider, casino and category:
 * attempts nobody finished, where the casino may have moved money that no record shows yet. Read
 * per game provider through (group_id, status, ...), so only PENDING index entries are visited.
 */
export async function abandonedTransactions(db: Knex, inFlightSeconds: number): Promise<AbandonedTransactions[]> {
  const result = await db.raw(
    `SELECT g.group_id, t.provider_id, t.category, count(*)::int AS count,
            extract(epoch from (now() - min(t.claimed_at)))::float8 AS oldest_seconds
       FROM game_providers g
       CROSS JOIN LATERAL (
         SELECT provider_id, category, claimed_at FROM transactions
          WHERE group_id = g.group_id AND status = 'PENDING' AND claimed_at <= now() - make_interval(secs => ?)
       ) t
      GROUP BY g.group_id, t.provider_id, t.category`,
    [inFlightSeconds],
  ).timeout(5000, { cancel: true });
  return (result.rows as { group_id: string; provider_id: string; category: Category; count: number; oldest_seconds: number }[]).map((r) => ({
    groupId: r.group_id,
    providerId: r.provider_id,
    category: r.category,
    count: r.count,
    oldestSeconds: Math.floor(r.oldest_seconds),
  }));
}
