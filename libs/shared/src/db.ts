import knex, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations';

export type { Knex } from 'knex';

/** The two handles of STYLE 5: writes go to the primary, reporting gets only the read replica. */
export interface Database {
  primary: Knex;
  read: Knex;
}

export function createKnex(url: string, poolMax: number, applicationName: string): Knex {
  return knex({
    client: 'pg',
    connection: { connectionString: url, application_name: applicationName },
    pool: { min: 0, max: poolMax, idleTimeoutMillis: 30000 },
    acquireConnectionTimeout: 10000,
  });
}

export function createDatabase(opts: { url: string; readUrl: string; poolMax: number; name: string }): Database {
  const primary = createKnex(opts.url, opts.poolMax, `relay-${opts.name}`);
  const read = opts.readUrl === opts.url ? primary : createKnex(opts.readUrl, opts.poolMax, `relay-${opts.name}-read`);
  return { primary, read };
}

export async function closeDatabase(db: Database): Promise<void> {
  await db.primary.destroy();
  if (db.read !== db.primary) await db.read.destroy();
}

/** Creates the database named in the URL when it does not exist yet (CONTRACTS 1). */
export async function ensureDatabaseExists(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[a-zA-Z0-9_-]+$/.test(name)) throw new Error('database name must be alphanumeric, _ or -');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
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
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export async function migrateToLatest(url: string): Promise<string[]> {
  await ensureDatabaseExists(url);
  const db = createKnex(url, 2, 'relay-migrate');
  try {
    const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
    return applied;
  } finally {
    await db.destroy();
  }
}

/** True when the error is PostgreSQL's unique violation. */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string })?.code === '23505';
}
