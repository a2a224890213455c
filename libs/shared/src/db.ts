import { createHash } from 'node:crypto';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource, reportingMigrationSource, SQUASHED_CHAIN_ENDS, type RelayMigrationSource } from './migrations';
import { assertLogicalWal, awaitCounts, ensureSubscription, serverUrl, withClient, type SubscribeOptions } from './replication';

export type { Knex } from 'knex';

/**
 * The two handles: the money database (sessions, configuration, the ledger, accounts, the audit
 * trail; every write) and the reporting database, its logical replica with reporting's own indexes
 * and rollups (docs/reporting-database.md). Reporting and the back office's money views are handed
 * only `reporting`.
 */
export interface Database {
  primary: Knex;
  reporting: Knex;
}

/** Where knex's own warnings go: structured logs instead of console.log. */
export interface KnexLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * How a pool keeps its connections. By default a pool closes what stayed idle for 30 s. The money
 * path keeps every connection (`warm`): a new connection costs PostgreSQL a process, its catalog
 * caches and a plan of each money statement (about 10 ms each under load), so a wallet that sat
 * idle for half a minute spent seconds of the database's CPU re-planning at the start of the next
 * burst, which is when it is needed most (the games' repeats after an outage). `settings` are
 * session settings every connection starts with (see MONEY_PATH_SETTINGS).
 */
export interface PoolPolicy {
  warm?: boolean;
  settings?: Record<string, string>;
}

export function createKnex(url: string, poolMax: number, applicationName: string, log?: KnexLog, policy: PoolPolicy = {}): Knex {
  return knex({
    ...(log
      ? {
          log: {
            warn: (message: unknown) => log.warn({ knex: String(message) }, 'knex warning'),
            error: (message: unknown) => log.error({ knex: String(message) }, 'knex error'),
            deprecate: (method: unknown, alternative: unknown) => log.warn({ method: String(method), alternative: String(alternative) }, 'knex deprecation'),
            debug: () => undefined,
          },
        }
      : {}),
    client: 'pg',
    connection: {
      connectionString: withSettings(url, sessionSettings(policy)),
      application_name: applicationName,
      // A connection kept for hours must notice a peer that vanished without a word (a NAT or load
      // balancer dropping it): TCP keepalives, and a warm pool's connections renewed every 30 to 35
      // minutes (one plan per statement each time), so none lives on unchecked forever.
      keepAlive: true,
    },
    pool: {
      min: policy.warm ? poolMax : 0,
      max: poolMax,
      idleTimeoutMillis: 30000,
      ...(policy.warm ? { maxConnectionLifetimeMillis: 30 * 60_000, maxConnectionLifetimeJitterMillis: 5 * 60_000 } : {}),
    },
    acquireConnectionTimeout: 10000,
  });
}

/**
 * Every connection runs with PostgreSQL's JIT compilation off. The platform's statements are short:
 * money calls cost far below JIT's threshold, and the reporting totals, whose live parts the planner
 * over-estimates (it cannot know that the rollups leave it hours, not months, to count), crossed it
 * and spent 1.8 s compiling a statement that then ran in 0.1 s (30M transactions).
 */
const EVERY_CONNECTION: Record<string, string> = { jit: 'off' };

/** The session settings a pool's connections start with: every connection's, then the policy's. */
export function sessionSettings(policy: PoolPolicy = {}): Record<string, string> {
  return { ...EVERY_CONNECTION, ...policy.settings };
}

/**
 * Session settings of the money path's connections. Its statements are named prepared statements
 * whose generic plans reach every row by a unique key (services/wallet/test/money-plans.test.ts): forced,
 * each is planned once per connection. Left to PostgreSQL's choice, each was planned six times per
 * connection (five custom plans first), and a connection whose custom plans cost less than its
 * generic one by the planner's estimate went on planning on every call.
 */
export const MONEY_PATH_SETTINGS: Record<string, string> = { plan_cache_mode: 'force_generic_plan' };

/** The wallet's pool: every connection kept, with the money path's settings. */
export const MONEY_PATH_POOL: PoolPolicy = { warm: true, settings: MONEY_PATH_SETTINGS };

/** `-c name=value` for each setting, added to the URL's options; one already there is kept (a read-only default, say). */
export function withSettings(url: string, settings: Record<string, string>): string {
  const u = new URL(url);
  const options = u.searchParams.get('options') ?? '';
  // `-c name=value`, `-cname=value` or `--name=value`: a setting the URL sets itself is left to it.
  const added = Object.entries(settings).filter(([name]) => !new RegExp(`(?:^|\\s)(?:-c\\s*|--)${name}\\s*=`).test(options));
  if (added.length === 0) return url;
  u.searchParams.set('options', [options, ...added.map(([name, value]) => `-c ${name}=${value}`)].filter(Boolean).join(' '));
  return u.toString();
}

export function createDatabase(opts: { url: string; reportingUrl: string; poolMax: number; name: string; log?: KnexLog; primaryPool?: PoolPolicy }): Database {
  const primary = createKnex(opts.url, opts.poolMax, `relay-${opts.name}`, opts.log, opts.primaryPool);
  // Opened lazily (pool min 0): a service that never reads reporting never connects to it.
  const reporting = opts.reportingUrl === opts.url ? primary : createKnex(opts.reportingUrl, opts.poolMax, `relay-${opts.name}-reporting`, opts.log);
  return { primary, reporting };
}

export async function closeDatabase(db: Database): Promise<void> {
  await db.primary.destroy();
  if (db.reporting !== db.primary) await db.reporting.destroy();
}

/** Creates the database named in the URL when it does not exist yet (README, Configuration). */
export async function ensureDatabaseExists(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[a-zA-Z0-9_-]+$/.test(name)) throw new Error('database name must be alphanumeric, _ or -');
  const client = new pg.Client({ connectionString: serverUrl(url) });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } catch (err) {
        if ((err as { code?: string }).code !== '42P04') throw err; // created concurrently
      }
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  const client = new pg.Client({ connectionString: serverUrl(url) });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** Creates the money database when missing and runs its pending migrations. */
export async function migrateToLatest(url: string, source: RelayMigrationSource = migrationSource): Promise<string[]> {
  await ensureDatabaseExists(url);
  const db = createKnex(url, 2, 'relay-migrate');
  try {
    await adoptBaseline(db, source);
    const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
    return applied;
  } finally {
    await db.destroy();
  }
}

/**
 * A database built by the migrations before the squash (issue 34) takes its baseline without running
 * it: when knex_migrations records the end of that chain (the previous release's 033, or 034) and not
 * the baseline, its rows are replaced by the baseline's, in one transaction. The migrations after the
 * baseline then run as on any database (a reporting database of the previous release gets its counts
 * there). Nothing the previous release uses is dropped: it keeps running while a deploy rolls out
 * (what it left behind is listed in docs/ledger.md, "Migrating an existing database", for a later
 * release to drop). A database part-way through the old chain is refused: the previous release's
 * migrations must finish it first. Returns what it found: `new` (no migration recorded), `current`
 * (the baseline recorded) or `adopted`.
 */
export async function adoptBaseline(db: Knex, source: RelayMigrationSource): Promise<'new' | 'current' | 'adopted'> {
  const { rows: table } = await db.raw<{ rows: { t: string | null }[] }>(`SELECT to_regclass('knex_migrations')::text AS t`);
  if (!table[0].t) return 'new';
  return db.transaction(async (trx) => {
    // Two services starting at once: the second waits here, then finds the baseline recorded.
    await trx.raw('LOCK TABLE knex_migrations IN EXCLUSIVE MODE');
    const { rows } = await trx.raw<{ rows: { name: string; batch: number | null }[] }>('SELECT name, batch FROM knex_migrations ORDER BY name');
    const names = rows.map((r) => r.name);
    if (names.length === 0) return 'new';
    if (names.includes(source.baseline)) return 'current';
    const known = new Set(await source.getMigrations([]));
    if (names.some((n) => known.has(n)) || !names.some((n) => SQUASHED_CHAIN_ENDS.includes(n))) {
      const at = names[names.length - 1];
      throw new Error(
        `this database's migrations stop at ${at}, part-way through the migrations that ${source.baseline} replaces ` +
          `(they end at ${SQUASHED_CHAIN_ENDS[0]} or ${SQUASHED_CHAIN_ENDS[1]}): run the previous release's migrations to the end first, then this release's`,
      );
    }
    const batch = Math.max(0, ...rows.map((r) => r.batch ?? 0));
    await trx.raw('DELETE FROM knex_migrations');
    await trx.raw('INSERT INTO knex_migrations (name, batch, migration_time) VALUES (?, ?, now())', [source.baseline, batch]);
    return 'adopted';
  });
}

/** Creates the reporting database when missing and runs its pending migrations (its own list). */
export function migrateReporting(url: string): Promise<string[]> {
  return migrateToLatest(url, reportingMigrationSource);
}

/**
 * Both databases ready to serve, as `npm start`, the demo and the tests need them: the server can
 * publish (wal_level=logical, else a clear error naming the setting), the money database is
 * migrated, and the reporting database exists, is migrated, and is subscribed to the money
 * database's publication. Reporting migrates first: a column added to a published table must
 * exist on the subscriber before the publisher sends it.
 */
export async function prepareDatabases(moneyUrl: string, reportingUrl: string, options: SubscribeOptions = {}): Promise<{ money: string[]; reporting: string[]; subscription: 'existing' | 'created' }> {
  await assertLogicalWal(moneyUrl);
  await ensureDatabaseExists(moneyUrl);
  const reporting = await migrateReporting(reportingUrl);
  const money = await migrateToLatest(moneyUrl);
  await mirrorPartitions(moneyUrl, reportingUrl);
  const subscription = await ensureSubscription(moneyUrl, reportingUrl, options);
  // A first copy (or one a previous start left running) gets its counts once it ends.
  await awaitCounts(reportingUrl, options.copyWaitMs ?? 120_000, options.log);
  return { money, reporting, subscription };
}

/**
 * Every monthly partition of the money database's ledger made on the reporting database too, before
 * its first copy: the copied rows then land in their months (which its retention can drop), not in
 * its default partition (its migrations make only the current month and the months ahead).
 */
export async function mirrorPartitions(moneyUrl: string, reportingUrl: string): Promise<number> {
  const months = await withClient(moneyUrl, async (money) => (await money.query<{ parent_table: string; month: string }>(
    `SELECT parent_table, to_char(month, 'YYYY-MM-DD') AS month FROM ledger_partitions WHERE month IS NOT NULL ORDER BY month`,
  )).rows, 'relay-migrate');
  return withClient(reportingUrl, async (reporting) => {
    let created = 0;
    for (const { parent_table, month } of months) {
      const { rows } = await reporting.query<{ created: boolean }>('SELECT ledger_create_partition($1, $2::date) AS created', [parent_table, month]);
      if (rows[0].created) created += 1;
    }
    return created;
  }, 'relay-migrate');
}

/** True when the error is PostgreSQL's unique violation. */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string })?.code === '23505';
}

/** SQL text with knex-style `?` placeholders and its bindings: what runPrepared runs. */
export interface Statement {
  sql: string;
  bindings: Knex.RawBinding[];
}

/** Knex-style `?` placeholders as PostgreSQL's `$1, $2, ...`; the SQL must contain no other `?`. */
export function numberedPlaceholders(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

const preparedText = new Map<string, { name: string; text: string }>();

/**
 * Runs a hot-path statement as a named prepared statement: PostgreSQL parses and plans it once
 * per connection instead of on every call (the money statements are large CTEs).
 */
export async function runPrepared<R = Record<string, unknown>>(db: Knex, { sql, bindings }: Statement): Promise<{ rows: R[]; rowCount: number }> {
  let prepared = preparedText.get(sql);
  if (!prepared) {
    const text = numberedPlaceholders(sql);
    prepared = { name: `relay_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
    preparedText.set(sql, prepared);
  }
  const client = db.client as { acquireConnection(): Promise<pg.PoolClient>; releaseConnection(c: pg.PoolClient): Promise<void> };
  const connection = await client.acquireConnection();
  try {
    const result = await connection.query({ name: prepared.name, text: prepared.text, values: bindings });
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  } finally {
    await client.releaseConnection(connection);
  }
}
