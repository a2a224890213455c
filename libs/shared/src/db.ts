import { createHash } from 'node:crypto';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import { serverUrl } from './replication';

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
