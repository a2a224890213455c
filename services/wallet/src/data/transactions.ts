import { createHash } from 'node:crypto';
import { AppError, newId, runPrepared, type Knex, type Statement } from '@relay/shared';

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
  /** The record's created_at as PostgreSQL prints it (microseconds kept): its partition key. */
  createdAt: string;
}

export interface ExistingTransaction {
  pk: string;
  /** The record's partition key (see Claim.createdAt). */
  createdAt: string;
  /** The record's month was archived: this is the last state its key kept (libs/ledger/src/schema/keys.ts). */
  archived: boolean;
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
const REWRITTEN = COLUMNS.filter(([, c]) => !['provider_id', 'transaction_id', 'category', 'group_id'].includes(c));

/** The record's columns as a claim and a revival insert them, and their placeholders. */
const RECORD_COLUMNS = COLUMNS.map(([, c]) => c).join(', ');
const RECORD_PLACEHOLDERS = COLUMNS.map(() => '?').join(', ');

/**
 * The idempotency claim of a new transactionId, as ONE atomic statement: insert its key, the
 * transaction as PENDING in the current month's partition and its attempt in the audit log. It
 * returns a row only to the one caller that inserted the key; concurrent identical requests can
 * never both reach the casino. When the key exists it does nothing at all: no row lock, no
 * transaction id, no WAL, so a replay of a SUCCESS costs reads only.
 */
export async function claimTransaction(db: Knex, m: MovementRecord, request: object): Promise<Claim | null> {
  const result = await runPrepared<Claim>(db, claimStatement(m, request));
  return result.rows[0] ?? null;
}

/**
 * The claim's data-modifying CTEs (k: the key, claimed: the record, att: its attempt). Every
 * statement's text is built once, at load: the same string each call is hashed once by the
 * prepared-statement cache and compared by identity by the driver, where a text rebuilt per call
 * (3 KB here) was hashed and compared whole on every money call.
 */
const CLAIM_CTES = `
    k AS (
      INSERT INTO transaction_keys (provider_id, transaction_id, id, created_at) VALUES (?, ?, ?, now())
      ON CONFLICT (provider_id, transaction_id) DO NOTHING
      RETURNING id, created_at
    ),
    claimed AS (
      INSERT INTO transactions (id, ${RECORD_COLUMNS}, status, request_fingerprint, attempt, claimed_at, created_at, updated_at)
      SELECT k.id, ${RECORD_PLACEHOLDERS}, 'PENDING', ?, 1, now(), k.created_at, now() FROM k
      RETURNING id, attempt, created_at
    ),
    att AS (
      INSERT INTO transaction_attempts (transaction_pk, attempt, transaction_created_at, request, started_at)
      SELECT id, attempt, created_at, ?::json, now() FROM claimed
      RETURNING transaction_pk, attempt, transaction_created_at
    )`;

/** CLAIM_CTES's bindings. The request is written once as JSON; its fingerprint is the hash of that same text. */
function claimBindings(m: MovementRecord, request: object): Knex.RawBinding[] {
  const json = JSON.stringify(request);
  return [m.providerId, m.transactionId, newId(), ...COLUMNS.map(([k]) => m[k]), fingerprintOf(json), json];
}

const CLAIM_SQL = `WITH ${CLAIM_CTES}
    SELECT transaction_pk AS pk, attempt, transaction_created_at::text AS "createdAt" FROM att`;

/** The statement behind claimTransaction, exported so tests can check its plan. */
export function claimStatement(m: MovementRecord, request: object): Statement {
  return { sql: CLAIM_SQL, bindings: claimBindings(m, request) };
}

/**
 * The record of a transactionId, as a named prepared statement: every replay runs it. The key
 * leads to the record's one partition; a key whose month was archived answers from its copy of
 * the record's last state.
 */
const FIND_SQL = `SELECT k.id, k.created_at::text AS created_at, t.id IS NULL AS archived,
                 coalesce(t.status, k.archived->>'status') AS status,
                 coalesce(t.category, k.archived->>'category') AS category,
                 coalesce(t.group_id, k.archived->>'group_id') AS group_id,
                 coalesce(t.game_id, (k.archived->>'game_id')::int) AS game_id,
                 coalesce(t.player_id, k.archived->>'player_id') AS player_id,
                 CASE WHEN t.id IS NULL THEN (k.archived->>'balance')::numeric ELSE t.balance END AS balance,
                 CASE WHEN t.id IS NULL THEN k.archived->>'username' ELSE t.username END AS username,
                 extract(epoch from (now() - coalesce(t.claimed_at, (k.archived->>'claimed_at')::timestamptz)))::float8 AS age_seconds
            FROM (SELECT id, created_at, archived FROM transaction_keys WHERE provider_id = ? AND transaction_id = ?) k
            -- By the key's values as parameters (InitPlans): a primary-key probe in the one partition
            -- they select at execution, whatever the planner thinks of the other partitions' sizes.
            LEFT JOIN transactions t
              ON t.id = (SELECT id FROM transaction_keys WHERE provider_id = ? AND transaction_id = ?)
             AND t.created_at = (SELECT created_at FROM transaction_keys WHERE provider_id = ? AND transaction_id = ?)`;

export function findStatement(providerId: string, transactionId: string): Statement {
  return { sql: FIND_SQL, bindings: [providerId, transactionId, providerId, transactionId, providerId, transactionId] };
}

const CLAIM_OR_FIND_SQL = `WITH ${CLAIM_CTES}
    SELECT true AS claimed, transaction_pk AS id, transaction_created_at::text AS created_at, attempt, false AS archived,
           NULL::text AS status, NULL::text AS category, NULL::text AS group_id, NULL::int AS game_id, NULL::text AS player_id,
           NULL::numeric AS balance, NULL::text AS username, NULL::float8 AS age_seconds
      FROM att
    UNION ALL
    SELECT false, f.id, f.created_at, NULL::int, f.archived, f.status, f.category, f.group_id, f.game_id, f.player_id, f.balance, f.username, f.age_seconds
      FROM (${FIND_SQL}) f
     WHERE NOT EXISTS (SELECT 1 FROM k)`;

/**
 * What every money call runs first, in ONE round trip: the claim (claimStatement) or, when the
 * key already exists, the record of that transactionId (findStatement), so a replay of a SUCCESS
 * is one statement that reads and writes nothing. The record is read only when this statement
 * inserted no key (a one-time filter), in the statement's snapshot: a key committed by a
 * concurrent claim after that snapshot was taken is neither claimed nor seen (no row at all), and
 * the caller runs the statement again.
 */
export function claimOrFindStatement(m: MovementRecord, request: object): Statement {
  return { sql: CLAIM_OR_FIND_SQL, bindings: [...claimBindings(m, request), ...findStatement(m.providerId, m.transactionId).bindings] };
}

/** A new claim, the existing record of the transactionId, or neither (claimed concurrently: run it again). */
export type ClaimOrExisting = { claim: Claim } | { existing: ExistingTransaction | null };

export async function claimOrFindTransaction(db: Knex, m: MovementRecord, request: object): Promise<ClaimOrExisting> {
  const row = (await runPrepared<Record<string, any>>(db, claimOrFindStatement(m, request))).rows[0];
  if (!row) return { existing: null };
  if (row.claimed) return { claim: { pk: row.id, attempt: row.attempt, createdAt: row.created_at } };
  return { existing: existingFrom(row) };
}

/**
 * Takes over a transactionId whose last attempt FAILED or whose PENDING attempt is older than the
 * in-flight window, as ONE atomic statement: the row is re-checked under its lock, so of several
 * concurrent repeats exactly one wins and appends its attempt; the others get no row. A record
 * whose month was archived is revived instead (reviveStatement).
 */
export async function takeOverTransaction(db: Knex, existing: ExistingTransaction, m: MovementRecord, request: object, inFlightSeconds: number): Promise<Claim | null> {
  const statement = existing.archived ? reviveStatement(m, request, inFlightSeconds) : takeOverStatement(existing.pk, existing.createdAt, m, request, inFlightSeconds);
  const result = await runPrepared<Claim>(db, statement);
  return result.rows[0] ?? null;
}

/**
 * By the primary key findTransaction read: the row is reached by a unique key whatever the
 * planner knows, in its one partition. What it rewrites (game, amount, currency) reaches the
 * reporting database's counts as the row's update (docs/ledger.md, "Exact totals").
 */
export function takeOverStatement(pk: string, createdAt: string, m: MovementRecord, request: object, inFlightSeconds: number): Statement {
  const sql = `
    WITH claimed AS (
      UPDATE transactions SET
        ${REWRITTEN.map(([, c]) => `${c} = ?`).join(', ')},
        status = 'PENDING', request_fingerprint = ?,
        attempt = attempt + 1, claimed_at = now(), updated_at = now(),
        balance = NULL, username = NULL, error_code = NULL, error_message = NULL, completed_at = NULL
      WHERE id = ? AND created_at = ?::timestamptz
        -- The same movement: same player and category, and the caller's group, or the game (which
        -- the caller owns now: a game moved to another provider takes its open attempts with it).
        AND (group_id = ? OR game_id = ?)
        AND category = ?
        AND player_id = ?
        AND (status = 'FAILED' OR (status = 'PENDING' AND claimed_at <= now() - make_interval(secs => ?)))
      RETURNING id, attempt, created_at
    )
    INSERT INTO transaction_attempts (transaction_pk, attempt, transaction_created_at, request, started_at)
    SELECT id, attempt, created_at, ?::json, now() FROM claimed
    RETURNING transaction_pk AS pk, attempt, transaction_created_at::text AS "createdAt"`;
  return {
    sql,
    bindings: [
      ...REWRITTEN.map(([k]) => m[k]),
      fingerprint(request),
      pk,
      createdAt,
      m.groupId,
      m.gameId,
      m.category,
      m.playerId,
      inFlightSeconds,
      JSON.stringify(request),
    ],
  };
}

/**
 * The takeover of a FAILED or abandoned transactionId whose month was archived (its key kept the
 * last state): one statement moves the key to a new record in the current month, which goes on
 * with the next attempt number; the archive keeps the earlier attempts. The key's row lock makes
 * exactly one of concurrent repeats win, as for a takeover.
 */
export function reviveStatement(m: MovementRecord, request: object, inFlightSeconds: number): Statement {
  const sql = `
    WITH k AS (
      -- RETURNING shows the new row: the old state comes from the joined read of the same key.
      UPDATE transaction_keys key SET id = ?, created_at = now(), archived = NULL
        FROM (SELECT archived AS last FROM transaction_keys WHERE provider_id = ? AND transaction_id = ?) old
      WHERE key.provider_id = ? AND key.transaction_id = ? AND key.archived IS NOT NULL
        AND (key.archived->>'group_id' = ? OR (key.archived->>'game_id')::int = ?)
        AND key.archived->>'category' = ?
        AND key.archived->>'player_id' = ?
        AND (key.archived->>'status' = 'FAILED'
             OR (key.archived->>'status' = 'PENDING' AND (key.archived->>'claimed_at')::timestamptz <= now() - make_interval(secs => ?)))
      RETURNING key.id, key.created_at, (old.last->>'attempt')::int + 1 AS attempt
    ),
    claimed AS (
      INSERT INTO transactions (id, ${RECORD_COLUMNS}, status, request_fingerprint, attempt, claimed_at, created_at, updated_at)
      SELECT k.id, ${RECORD_PLACEHOLDERS}, 'PENDING', ?, k.attempt, now(), k.created_at, now() FROM k
      RETURNING id, attempt, created_at
    )
    INSERT INTO transaction_attempts (transaction_pk, attempt, transaction_created_at, request, started_at)
    SELECT id, attempt, created_at, ?::json, now() FROM claimed
    RETURNING transaction_pk AS pk, attempt, transaction_created_at::text AS "createdAt"`;
  return {
    sql,
    bindings: [
      newId(),
      m.providerId,
      m.transactionId,
      m.providerId,
      m.transactionId,
      m.groupId,
      m.gameId,
      m.category,
      m.playerId,
      inFlightSeconds,
      ...COLUMNS.map(([k]) => m[k]),
      fingerprint(request),
      JSON.stringify(request),
    ],
  };
}

export async function findTransaction(db: Knex, providerId: string, transactionId: string): Promise<ExistingTransaction | null> {
  const row = (await runPrepared<Record<string, any>>(db, findStatement(providerId, transactionId))).rows[0];
  return row ? existingFrom(row) : null;
}

/** A row of findStatement's columns as the record it describes. */
function existingFrom(row: Record<string, any>): ExistingTransaction {
  if (row.status === null) {
    // A key whose record is gone without its state copied: a partition dropped by hand.
    throw new AppError('INTERNAL_ERROR', 'The record of this transactionId is missing from the ledger');
  }
  return {
    pk: row.id,
    createdAt: row.created_at,
    archived: row.archived,
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
 * attempt still owns it; it returns the credit that settled a bet early, see settled_by in libs/ledger/src/schema/ledger.ts)
 * and its attempt row records the casino's answer. Callers add the round effect as a third
 * data-modifying CTE, so the whole outcome commits atomically in one round trip.
 */
export const SUCCESS_CTES = `tx AS (
        UPDATE transactions SET status = 'SUCCESS', balance = ?, username = ?, completed_at = now(), updated_at = now()
        WHERE id = ? AND created_at = ?::timestamptz AND attempt = ? AND status = 'PENDING' RETURNING id, settled_by, settled_by_at
      ),
      att AS (
        UPDATE transaction_attempts SET outcome = 'SUCCESS', casino_status = ?, casino_body = ?, finished_at = now()
        WHERE transaction_pk = ? AND attempt = ? AND transaction_created_at = ?::timestamptz RETURNING attempt
      )`;

/** SUCCESS_CTES's bindings. */
export function successBindings(s: SuccessFacts): Knex.RawBinding[] {
  return [s.balance, s.username, s.claim.pk, s.claim.createdAt, s.claim.attempt, s.casinoStatus, s.casinoBody, s.claim.pk, s.claim.attempt, s.claim.createdAt];
}

/** Records the casino's failure on the transaction and its attempt, in one statement. */
export async function markFailed(db: Knex, claim: Claim, errorCode: string, errorMessage: string, outcome: CasinoOutcome): Promise<void> {
  await runPrepared(db, markFailedStatement(claim, errorCode, errorMessage, outcome));
}

const MARK_FAILED_SQL = `WITH tx AS (
        UPDATE transactions SET status = 'FAILED', error_code = ?, error_message = ?, completed_at = now(), updated_at = now()
        WHERE id = ? AND created_at = ?::timestamptz AND attempt = ? AND status = 'PENDING' RETURNING id
      )
    UPDATE transaction_attempts SET outcome = 'FAILED', error_code = ?, error_message = ?, casino_status = ?, casino_body = ?, finished_at = now()
    WHERE transaction_pk = ? AND attempt = ? AND transaction_created_at = ?::timestamptz`;

/** The statement behind markFailed, exported so tests can check its plan. */
export function markFailedStatement(claim: Claim, errorCode: string, errorMessage: string, outcome: CasinoOutcome): Statement {
  return {
    sql: MARK_FAILED_SQL,
    bindings: [
      errorCode, errorMessage, claim.pk, claim.createdAt, claim.attempt,
      errorCode, errorMessage, outcome.casinoStatus ?? null, outcome.casinoBody ?? null, claim.pk, claim.attempt, claim.createdAt,
    ],
  };
}

function fingerprint(request: object): string {
  return fingerprintOf(JSON.stringify(request));
}

function fingerprintOf(json: string): string {
  return createHash('sha256').update(json).digest('hex');
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
