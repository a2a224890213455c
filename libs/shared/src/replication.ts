import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { AppError } from './errors';
import type { ServiceMetrics } from './metrics';

/**
 * The reporting database is a logical replica of the money database (docs/reporting-database.md):
 * PostgreSQL's own publication and subscription, nothing home-made. The money database publishes
 * the ledger and what reporting joins to it; the reporting database subscribes, with reporting's
 * own indexes and rollups on its copies.
 *
 * Two PostgreSQL rules shape the set-up:
 * - Creating a slot waits for every write transaction open on the publisher's server to finish. A
 *   subscription to a database of the same server would wait for its own transaction, so the slot is
 *   created first, on a connection of its own, outside any transaction, with a time-out that names
 *   what blocks it; the subscription then adopts it (`create_slot = false`).
 * - DDL is not replicated: a new published column is migrated on reporting first, then on the money
 *   database, then the publication is refreshed (`ALTER SUBSCRIPTION ... REFRESH PUBLICATION`).
 */

export const PUBLICATION = 'relay_reporting';

/**
 * True on the reporting database while a new subscription's first copy has no counts yet: it runs
 * with the count triggers off, and @relay/ledger's armCounts makes the counts after it (libs/ledger
 * first-copy.ts, which keeps the mark). Until then it is not caught up (LAG_SQL, replicationBarrier).
 */
export const COUNTS_DISARMED_SQL = `EXISTS (SELECT 1 FROM ledger_counts_pending)`;

/**
 * What the money database publishes, and which columns. A column holding a secret (a wallet token,
 * a wallet secret, a launch key, a token hash) is never listed; every table has a primary key
 * (a logical replica needs one to apply updates and deletes).
 */
export const PUBLISHED: Record<string, readonly string[] | 'all'> = {
  rounds: 'all',
  transactions: 'all',
  transaction_attempts: 'all',
  round_ended_notifications: 'all',
  reconciliation_decisions: 'all',
  win_reviews: 'all',
  win_flag_thresholds: 'all',
  replication_heartbeat: 'all',
  game_providers: ['group_id', 'name', 'status', 'rate_limit_per_second', 'created_at', 'updated_at'],
  games: 'all',
  game_config_templates: 'all',
  // The idempotency keys: a story or a detail finds its record by them, as the money path does.
  round_keys: 'all',
  transaction_keys: 'all',
  casinos: ['provider_id', 'name', 'wallet_url', 'status', 'refund_on_credit_fail', 'credit_on_disconnect', 'created_at', 'updated_at'],
  casino_game_configs: 'all',
  currency_configs: 'all',
  sessions: ['session_id', 'group_id', 'game_id', 'provider_id', 'player_id', 'currency', 'language', 'username', 'created_at', 'expires_at', 'archive_until'],
};

/** The publication's table list: `t` or `t (a, b)` for each published table. */
export function publicationTables(published: Record<string, readonly string[] | 'all'> = PUBLISHED): string {
  return Object.entries(published)
    .map(([table, columns]) => (columns === 'all' ? table : `${table} (${columns.join(', ')})`))
    .join(', ');
}

/** Creates the publication, or brings its table list to PUBLISHED (a migration's job on the money database). */
export function publicationSql(): string {
  return `
    DO $$
    BEGIN
      IF EXISTS (SELECT 1 FROM pg_publication WHERE pubname = '${PUBLICATION}') THEN
        ALTER PUBLICATION ${PUBLICATION} SET TABLE ${publicationTables()};
      ELSE
        CREATE PUBLICATION ${PUBLICATION} FOR TABLE ${publicationTables()} WITH (publish_via_partition_root = true);
      END IF;
    END $$;`;
}

const databaseName = (url: string) => decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));

/**
 * The subscription's name, which is also its slot's on the money database's server: one per
 * reporting database, so every reporting database of a server (each test run's) has its own.
 */
export function subscriptionName(reportingUrl: string): string {
  const name = `relay_sub_${databaseName(reportingUrl).toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
  return name.slice(0, 63);
}

/** The libpq connection string the subscriber uses to reach the money database. */
export function publisherConnection(moneyUrl: string): string {
  const u = new URL(moneyUrl);
  const parts: Record<string, string> = {
    host: u.hostname || '127.0.0.1',
    port: u.port || '5432',
    dbname: databaseName(moneyUrl),
    user: decodeURIComponent(u.username || 'postgres'),
  };
  if (u.password) parts.password = decodeURIComponent(u.password);
  const sslmode = u.searchParams.get('sslmode');
  if (sslmode) parts.sslmode = sslmode;
  return Object.entries(parts)
    .map(([k, v]) => `${k}='${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`)
    .join(' ');
}

/** One connection for the length of `fn`, closed whatever happens. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>, applicationName = 'relay-replication-setup'): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: applicationName });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The URL of the server's `postgres` database: for what concerns the server, or a database that may not exist yet. */
export function serverUrl(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

/** The server's wal_level. */
export async function walLevelOf(url: string): Promise<string> {
  return withClient(serverUrl(url), async (c) => (await c.query<{ wal_level: string }>('SHOW wal_level')).rows[0].wal_level);
}

/** Fails with a message naming the setting when the money database's server cannot publish. */
export async function assertLogicalWal(moneyUrl: string): Promise<void> {
  const level = await walLevelOf(moneyUrl);
  if (level !== 'logical') {
    throw new Error(
      `the money database's server runs with wal_level=${level}; the reporting database is a logical replica and needs wal_level=logical ` +
        `(set wal_level = logical in postgresql.conf, or ALTER SYSTEM SET wal_level = logical, and restart PostgreSQL)`,
    );
  }
}

export interface SubscribeOptions {
  /** How long creating the slot may wait for the write transactions open on the money database's server. */
  slotTimeoutMs?: number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** How long prepareDatabases waits for a first copy to end and its counts to be on (default 2 minutes). */
  copyWaitMs?: number;
  /** Runs on the reporting database in the transaction that creates a new subscription (and so starts its first copy). */
  beforeFirstCopy?: (reporting: pg.Client) => Promise<unknown>;
}

/**
 * Subscribes the reporting database to the money database's publication, once: a reporting
 * database that already has its subscription is left alone (it resumes from its slot). A slot of
 * that name with no subscription (an orphan: a reporting database dropped without it) is dropped
 * and created anew, since the new subscription copies every table from scratch anyway.
 */
export async function ensureSubscription(moneyUrl: string, reportingUrl: string, options: SubscribeOptions = {}): Promise<'existing' | 'created'> {
  const name = subscriptionName(reportingUrl);
  const exists = await withClient(reportingUrl, async (c) => {
    if ((await c.query('SELECT 1 FROM pg_subscription WHERE subname = $1', [name])).rowCount !== 1) return false;
    // A table the money database's migrations added to the publication since is copied and followed from now on.
    await c.query(`ALTER SUBSCRIPTION ${name} REFRESH PUBLICATION WITH (copy_data = true)`);
    return true;
  });
  if (exists) return 'existing';
  await withClient(moneyUrl, async (c) => {
    const orphan = await c.query<{ active: boolean }>('SELECT active FROM pg_replication_slots WHERE slot_name = $1', [name]);
    if (orphan.rowCount) {
      options.log?.('dropping an orphan replication slot (no subscription uses it)', { slot: name });
      await c.query('SELECT pg_drop_replication_slot($1)', [name]);
    }
    await c.query(`SET statement_timeout = ${Math.max(1, Math.round(options.slotTimeoutMs ?? 60_000))}`);
    try {
      await c.query(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [name]);
    } catch (err) {
      if ((err as { code?: string }).code !== '57014') throw err;
      const blockers = await withClient(moneyUrl, (b) => openWriters(b));
      throw new Error(`creating the replication slot ${name} waited past its time-out for open write transactions: ${blockers || 'none seen now'}`);
    }
  });
  await withClient(reportingUrl, async (c) => {
    // One transaction with the hook (the counts' first-copy mark): both or neither. A subscription
    // that adopts its slot (create_slot = false) may be created inside one.
    await c.query('BEGIN');
    try {
      await options.beforeFirstCopy?.(c);
      await c.query(
        `CREATE SUBSCRIPTION ${name} CONNECTION ${literal(publisherConnection(moneyUrl))} PUBLICATION ${PUBLICATION}
         WITH (create_slot = false, slot_name = '${name}', copy_data = true)`,
      );
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
  options.log?.('reporting database subscribed', { subscription: name });
  return 'created';
}

async function openWriters(c: pg.Client): Promise<string> {
  const { rows } = await c.query<{ pid: number; datname: string; application_name: string; xact_start: Date; state: string }>(
    `SELECT pid, datname, application_name, xact_start, state FROM pg_stat_activity
      WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid() ORDER BY xact_start`,
  );
  return rows.map((r) => `pid ${r.pid} (${r.datname}, ${r.application_name || 'no application name'}, ${r.state}, since ${r.xact_start.toISOString()})`).join('; ');
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * Removes the subscription and its slot, so both databases can be dropped: the subscription is
 * detached from its slot first (dropping it could otherwise wait on the publisher), then the slot
 * is dropped on the money database's server once its sender has let go of it.
 */
export async function dropSubscription(moneyUrl: string, reportingUrl: string): Promise<void> {
  const name = subscriptionName(reportingUrl);
  const moneyDatabase = databaseName(moneyUrl);
  const server = serverUrl(moneyUrl);
  let syncSlots: string | undefined;
  await withClient(reportingUrl, async (c) => {
    const found = await c.query<{ oid: string }>('SELECT oid::text FROM pg_subscription WHERE subname = $1', [name]);
    if (!found.rowCount) return;
    await c.query(`ALTER SUBSCRIPTION ${name} DISABLE`);
    // DROP SUBSCRIPTION drops the slots of tables still in their first copy, and a copy's worker that
    // is creating its slot waits for every open transaction, the DROP's included: each would wait for
    // the other for ever. So the DROP waits until the disabled subscription's workers have exited, and
    // ends the publisher's half of a copy that is still creating its slot.
    const slots = `pg\\_${found.rows[0].oid}\\_sync\\_%`;
    syncSlots = slots;
    await withClient(server, async (publisher) => {
      for (let i = 0; ; i += 1) {
        const workers = await c.query<{ pid: number }>('SELECT pid FROM pg_stat_subscription WHERE subname = $1 AND pid IS NOT NULL', [name]);
        const senders = await publisher.query<{ pid: number }>(
          'SELECT active_pid AS pid FROM pg_replication_slots WHERE slot_name LIKE $1 AND database = $2 AND active_pid IS NOT NULL',
          [slots, moneyDatabase],
        );
        if (!workers.rowCount && !senders.rowCount) return;
        // A second's grace, then the copy's sending half and this subscription's own workers are ended
        // (a worker blocked on a lock, or deep in a first copy, does not look at the disable flag).
        if (i === 40) {
          for (const { pid } of senders.rows) await publisher.query('SELECT pg_terminate_backend($1)', [pid]);
          for (const { pid } of workers.rows) await c.query('SELECT pg_terminate_backend($1)', [pid]);
        }
        if (i > 400) throw new Error(`the subscription ${name}'s workers did not stop`);
        await sleep(25);
      }
    });
    await c.query(`ALTER SUBSCRIPTION ${name} SET (slot_name = NONE)`);
    await c.query(`DROP SUBSCRIPTION ${name}`);
  }).catch((err: { code?: string }) => {
    if (err.code !== '3D000') throw err; // the reporting database is gone already
  });
  await withClient(server, async (c) => {
    // The copies' slots a disabled subscription may leave behind (their tables' copy was cut short).
    if (syncSlots) {
      await c.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name LIKE $1 AND database = $2 AND NOT active', [syncSlots, moneyDatabase]);
    }
    for (let i = 0; i < 100; i += 1) {
      const { rows } = await c.query<{ active: boolean }>('SELECT active FROM pg_replication_slots WHERE slot_name = $1', [name]);
      if (!rows.length) return;
      if (!rows[0].active) {
        try {
          await c.query('SELECT pg_drop_replication_slot($1)', [name]);
          return;
        } catch (err) {
          if ((err as { code?: string }).code !== '55006') throw err; // became active again meanwhile
        }
      }
      await sleep(50);
    }
    throw new Error(`the replication slot ${name} stayed in use`);
  });
}

/**
 * Waits until everything committed on the money database before the call is visible in the
 * reporting database: it bumps the heartbeat row on the money database and waits for that beat
 * to arrive (a subscription applies transactions in commit order). The barrier that tests and the
 * benchmarks use; nothing waits a fixed time.
 */
export async function replicationBarrier(money: { query: (sql: string) => Promise<{ rows: { beat: string }[] }> }, reporting: { query: (sql: string) => Promise<{ rows: { beat: string | null }[] }> }, timeoutMs = 20_000): Promise<void> {
  const { rows } = await money.query(`${HEARTBEAT_SQL} RETURNING beat::text AS beat`);
  const target = BigInt(rows[0].beat);
  const deadline = Date.now() + timeoutMs;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    // A table still in its first copy may lag behind the heartbeat's own: every table must be ready,
    // and the counts on, too.
    const seen = await reporting.query(
      `SELECT (SELECT beat::text FROM replication_heartbeat WHERE id = 1) AS beat,
              (EXISTS (SELECT 1 FROM pg_subscription_rel WHERE srsubstate <> 'r') OR ${COUNTS_DISARMED_SQL}) AS copying`,
    );
    const row = seen.rows[0] as { beat: string | null; copying?: boolean };
    if (row.beat !== null && BigInt(row.beat) >= target && !row.copying) return;
    if (Date.now() > deadline) throw new Error(`the reporting database did not reach heartbeat ${target} within ${timeoutMs} ms`);
    await sleep(wait);
  }
}

/** Bumps the heartbeat: the lag's clock, written by the ledger jobs' process every REPLICATION_HEARTBEAT_MS. */
export const HEARTBEAT_SQL = `UPDATE replication_heartbeat SET beat = beat + 1, beat_at = clock_timestamp() WHERE id = 1`;

/**
 * How far behind the reporting database is, read on it: the age of the newest heartbeat it has
 * applied. Written every second, so an up-to-date replica reads at most about a second.
 */
export const LAG_SQL = `
  SELECT extract(epoch FROM clock_timestamp() - beat_at)::float8 AS lag_seconds, beat_at,
         -- The heartbeat's small table can finish its first copy before the ledger's: not fresh until every
         -- table has, and its counts are on (COUNTS_DISARMED_SQL).
         (EXISTS (SELECT 1 FROM pg_subscription_rel WHERE srsubstate <> 'r') OR ${COUNTS_DISARMED_SQL}) AS copying
    FROM replication_heartbeat WHERE id = 1`;

/** Per slot on the money database: bytes not yet confirmed by the subscriber, and WAL the slot keeps. */
export const SLOT_SQL = `
  SELECT slot_name, active, wal_status,
         pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::float8 AS lag_bytes,
         pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::float8 AS retained_bytes
    FROM pg_replication_slots WHERE slot_type = 'logical' AND database = current_database()`;

/** A knex or pg handle: what the heartbeat and the freshness check run their one statement on. */
interface Queryable {
  raw(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * Writes the heartbeat every `intervalMs` (the ledger jobs' process does, REPLICATION_HEARTBEAT_MS):
 * the reporting database's copy of this row says how fresh everything before it is. A failed beat
 * is reported to `onError` and the next one tries again. Returns the function that stops it.
 */
export function startHeartbeat(money: Queryable, intervalMs: number, onError: (err: unknown) => void): () => void {
  let busy = false;
  const beat = () => {
    if (busy) return;
    busy = true;
    money.raw(HEARTBEAT_SQL).catch(onError).finally(() => (busy = false));
  };
  beat();
  const timer = setInterval(beat, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

export interface Freshness {
  /** Seconds since the newest heartbeat the reporting database has applied; Infinity: none yet. */
  lagSeconds: number;
  /** Everything committed on the money database before this instant is in the reporting database. */
  freshAsOf?: Date;
}

/**
 * Reads how fresh the reporting database is, at most every `cacheMs` while it is fresh (every
 * reporting request asks; one query answers them all). A reading past `maxLagSeconds` is not
 * reused: the first request after the replica caught up is answered.
 */
export class FreshnessProbe {
  private last?: { at: number; value: Freshness };
  private pending?: Promise<Freshness>;

  constructor(private readonly reporting: Queryable, private readonly maxLagSeconds: number, private readonly cacheMs = 200) {}

  async read(): Promise<Freshness> {
    if (this.last && Date.now() - this.last.at < this.cacheMs && this.last.value.lagSeconds <= this.maxLagSeconds) return this.last.value;
    this.pending ??= this.reporting
      .raw(LAG_SQL)
      .then(({ rows }) => {
        const row = rows[0] as { lag_seconds: number; beat_at: Date; copying: boolean } | undefined;
        const value: Freshness = row && !row.copying ? { lagSeconds: Math.max(0, Number(row.lag_seconds)), freshAsOf: row.beat_at } : { lagSeconds: Infinity };
        this.last = { at: Date.now(), value };
        return value;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }
}

/**
 * Express middleware for every route that reads the reporting database: each answer says how fresh
 * it is (`X-Reporting-Fresh-As-Of`: everything the money database committed before that instant is
 * in it; `X-Reporting-Lag-Seconds`), and past `maxLagSeconds` the route answers
 * 503 SERVICE_UNAVAILABLE with Retry-After rather than serve stale money.
 */
export function reportingFreshness(probe: FreshnessProbe, maxLagSeconds: number) {
  return (req: unknown, res: { setHeader(name: string, value: string): void }, next: (err?: unknown) => void): void => {
    probe.read().then(
      (fresh) => {
        if (fresh.freshAsOf) res.setHeader('X-Reporting-Fresh-As-Of', fresh.freshAsOf.toISOString());
        if (Number.isFinite(fresh.lagSeconds)) res.setHeader('X-Reporting-Lag-Seconds', fresh.lagSeconds.toFixed(3));
        if (fresh.lagSeconds <= maxLagSeconds) return next();
        const behind = Number.isFinite(fresh.lagSeconds) ? `${Math.round(fresh.lagSeconds)} s behind` : 'not caught up yet';
        next(new AppError('SERVICE_UNAVAILABLE', `Reporting is ${behind} the money database (the limit is ${maxLagSeconds} s); repeat the request`, {
          headers: { 'Retry-After': String(Math.min(30, Math.max(1, Math.ceil(Number.isFinite(fresh.lagSeconds) ? fresh.lagSeconds - maxLagSeconds : 5)))) },
        }));
      },
      (err) => next(err),
    );
  };
}

/** relay_replication_lag_seconds on the service that reads the reporting database (Infinity reads as +Inf: no heartbeat yet). */
export function registerLagMetric(metrics: ServiceMetrics, probe: FreshnessProbe): void {
  metrics.gauge('relay_replication_lag_seconds', 'Age of the newest replicated heartbeat the reporting database has applied', [], async function () {
    try {
      this.set((await probe.read()).lagSeconds);
    } catch {
      this.set(Number.POSITIVE_INFINITY);
    }
  });
}

/**
 * The money database's side of replication, read at each scrape by the admin service: per logical
 * slot, the bytes its subscriber has not confirmed (lag), the WAL it holds back from removal
 * (bounded by max_slot_wal_keep_size), and whether a subscriber is connected.
 */
export function registerSlotMetrics(metrics: ServiceMetrics, query: (sql: string) => Promise<{ rows: Record<string, unknown>[] }>): void {
  let pending: Promise<Record<string, unknown>[]> | null = null;
  const read = () => {
    pending ??= query(SLOT_SQL)
      .then((r) => r.rows)
      .finally(() => setTimeout(() => (pending = null), 1000).unref());
    return pending;
  };
  const each = (set: (slot: string, row: Record<string, unknown>) => void) => async () => {
    const rows = await read().catch(() => []);
    for (const row of rows) set(String(row.slot_name), row);
  };
  metrics.gauge('relay_replication_slot_lag_bytes', 'WAL bytes written on the money database that the slot\'s subscriber has not confirmed', ['slot'], function () {
    return each((slot, row) => this.set({ slot }, Number(row.lag_bytes ?? 0)))();
  });
  metrics.gauge('relay_replication_slot_retained_wal_bytes', 'WAL bytes the slot keeps from removal on the money database (bounded by max_slot_wal_keep_size)', ['slot'], function () {
    return each((slot, row) => this.set({ slot }, Number(row.retained_bytes ?? 0)))();
  });
  metrics.gauge('relay_replication_slot_active', '1 while a subscriber streams from the slot, 0 when none does; wal_status lost: the slot was invalidated', ['slot', 'wal_status'], function () {
    this.reset();
    return each((slot, row) => this.set({ slot, wal_status: String(row.wal_status ?? 'unknown') }, row.active ? 1 : 0))();
  });
}
