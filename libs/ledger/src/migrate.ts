import {
  assertLogicalWal, createKnex, ensureDatabaseExists, ensureSubscription, withClient, type Knex, type SubscribeOptions,
} from '@relay/shared';
import { awaitCounts, countsOffForFirstCopy } from './first-copy';
import { migrationSource, reportingMigrationSource, SQUASHED_CHAIN_ENDS, type RelayMigrationSource } from './migrations';

/**
 * Migrating both databases and preparing them to serve. It lives with the schema it applies: the
 * baselines are mostly the ledger's DDL, and @relay/shared (which every process imports) must not
 * import the ledger's package back.
 */

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
  const subscription = await ensureSubscription(moneyUrl, reportingUrl, { beforeFirstCopy: countsOffForFirstCopy, ...options });
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
