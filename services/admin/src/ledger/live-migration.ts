import pg from 'pg';
import { LEDGER_KEY_TABLES, LEDGER_LIVE_MIGRATION, LEDGER_MONEY_INDEXES, createKnex, migrateToLatest, migrationSource } from '@relay/shared';

/**
 * The live migration of a ledger on the pre-007 layout (one heap per money table) to the
 * partitioned layout, while money calls run (docs/ledger.md, "A live system"). The copy that
 * 007 does offline is avoided: each old table becomes the first partition, [MINVALUE, bound),
 * of its new partitioned parent. Steps, each recorded in ledger_live_migration and each safe to
 * interrupt and run again:
 *
 *   prepare   key tables, the new columns (settled_by_at, transaction_created_at) and triggers
 *             that keep both in step with every write from now on: short catalog locks only
 *             (lock_timeout, retried), no scan.
 *   backfill  the key of every old record, and the new columns of old rows, in batches by
 *             primary key (each batch a short transaction; its cursor is saved with it).
 *   indexes   CREATE UNIQUE INDEX CONCURRENTLY of the partitions' future primary keys, and any
 *             index of the new parents the old tables lack (writes go on; an index a crash left
 *             INVALID is dropped and built again).
 *   validate  CHECK (<key> < bound) NOT VALID (a catalog lock), then VALIDATE (SHARE UPDATE
 *             EXCLUSIVE: writes go on) so that ATTACH PARTITION need not scan under its lock.
 *   switch    the migrations from 007 on; 007 sees `ready` and switches in one short transaction
 *             (libs/shared/src/migrations/007_ledger_partitions.ts, switchLive). Retried when
 *             its lock_timeout expires behind a long reader.
 *
 * bound is the first day of the month after next (UTC): every row written before the switch is
 * below it, and the months from it on get partitions of their own. A run more than a week
 * before the bound is reached moves it a month on (the CHECKs are validated again).
 */

export const LIVE_STEPS = ['prepare', 'backfill', 'indexes', 'validate', 'switch'] as const;
export type LiveStep = (typeof LIVE_STEPS)[number];

export interface LiveMigrationOptions {
  /** Rows per backfill batch (default 5,000). */
  batchSize?: number;
  /** How long each catalog change waits for its lock before it gives up and tries again (default 1,000 ms). */
  lockTimeoutMs?: number;
  /** Tries of each catalog change and of the switch (default 30). */
  retries?: number;
  /** Stop once ready: the switch is left to `migrate-live` again or to the new release's migrations. */
  prepareOnly?: boolean;
  log?: (line: string) => void;
  /** Called after each step and each backfill batch: a throw there is a crash at that point (tests). */
  checkpoint?: (where: string) => void | Promise<void>;
}

export interface LiveMigrationReport {
  /** Where the ledger stands: ready (prepared, not switched) or switched. */
  state: 'ready' | 'switched';
  bound: string;
  steps: Record<string, number>;
  backfilled: { transactions: number; rounds: number; attempts: number };
  /** Tries the switch needed (each try waits at most the lock timeout). */
  switchTries: number;
  /** How long the switch's transaction took, locks included (the try that committed). */
  switchMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Lock not granted in time (55P03), or chosen as a deadlock's victim (40P01): nothing was changed, try again. */
const isLockTimeout = (err: unknown) => ['55P03', '40P01'].includes((err as { code?: string }).code ?? '');

const TRIGGERS = `
  CREATE OR REPLACE FUNCTION ledger_live_transaction_key() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO transaction_keys (provider_id, transaction_id, id, created_at) VALUES (NEW.provider_id, NEW.transaction_id, NEW.id, NEW.created_at)
    ON CONFLICT (provider_id, transaction_id) DO NOTHING;
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION ledger_live_round_key() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO round_keys (provider_id, round_id, id, created_at) VALUES (NEW.provider_id, NEW.round_id, NEW.id, NEW.created_at)
    ON CONFLICT (provider_id, round_id) DO NOTHING;
    RETURN NULL;
  END $$;
  -- The created_at of the credit that settled this bet early (003_early_settlement), by its primary key.
  CREATE OR REPLACE FUNCTION ledger_live_settled_by_at() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    SELECT created_at INTO NEW.settled_by_at FROM transactions WHERE id = NEW.settled_by;
    RETURN NEW;
  END $$;
  -- An attempt lives in its transaction's month: the transaction's created_at, by its primary key
  -- (the claim inserts both in one statement; the trigger sees the transaction row it inserted).
  CREATE OR REPLACE FUNCTION ledger_live_attempt_created() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    SELECT created_at INTO NEW.transaction_created_at FROM transactions WHERE id = NEW.transaction_pk;
    RETURN NEW;
  END $$;
`;

const ATTACH_TRIGGERS = [
  'CREATE OR REPLACE TRIGGER ledger_live_transaction_key AFTER INSERT ON transactions FOR EACH ROW EXECUTE FUNCTION ledger_live_transaction_key()',
  'CREATE OR REPLACE TRIGGER ledger_live_round_key AFTER INSERT ON rounds FOR EACH ROW EXECUTE FUNCTION ledger_live_round_key()',
  `CREATE OR REPLACE TRIGGER ledger_live_settled_by_at BEFORE INSERT OR UPDATE OF settled_by ON transactions FOR EACH ROW
     WHEN (NEW.settled_by IS NOT NULL AND NEW.settled_by_at IS NULL) EXECUTE FUNCTION ledger_live_settled_by_at()`,
  `CREATE OR REPLACE TRIGGER ledger_live_attempt_created BEFORE INSERT ON transaction_attempts FOR EACH ROW
     WHEN (NEW.transaction_created_at IS NULL) EXECUTE FUNCTION ledger_live_attempt_created()`,
];

/** The indexes of the new parents, as CONCURRENTLY builds on the old tables (same names: the old tables have most). */
function parentIndexesConcurrently(): { name: string; sql: string }[] {
  const statements = LEDGER_MONEY_INDEXES.split(';').map((s) => s.trim()).filter(Boolean);
  const own = statements.map((sql) => {
    const name = /CREATE INDEX (\w+)/.exec(sql)![1];
    return { name, sql: sql.replace('CREATE INDEX', 'CREATE INDEX CONCURRENTLY IF NOT EXISTS') };
  });
  // 010_attempts_started_brin's index, which the parent will have too.
  own.push({
    name: 'transaction_attempts_live_started',
    sql: 'CREATE INDEX CONCURRENTLY IF NOT EXISTS transaction_attempts_live_started ON transaction_attempts USING brin (started_at) WITH (autosummarize = on)',
  });
  return own;
}

export async function migrateLive(databaseUrl: string, options: LiveMigrationOptions = {}): Promise<LiveMigrationReport> {
  const batchSize = options.batchSize ?? 5000;
  const lockTimeoutMs = options.lockTimeoutMs ?? 1000;
  const retries = options.retries ?? 30;
  const log = options.log ?? (() => undefined);
  const checkpoint = options.checkpoint ?? (() => undefined);
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'relay-ledger-migrate-live' });
  // A connection lost mid-way (a killed backend) fails the query in progress; the command stops there.
  client.on('error', () => undefined);
  await client.connect();
  const report: LiveMigrationReport = { state: 'ready', bound: '', steps: {}, backfilled: { transactions: 0, rounds: 0, attempts: 0 }, switchTries: 0 };
  const q = <R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, values?: unknown[]) => client.query<R>(sql, values);

  /** A catalog change in a transaction of its own that waits at most lockTimeoutMs for its locks, tried again. */
  async function ddl(sql: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await q('BEGIN');
        await q(`SET LOCAL lock_timeout = ${Number(lockTimeoutMs)}`);
        await q(sql);
        await q('COMMIT');
        return;
      } catch (err) {
        await q('ROLLBACK').catch(() => undefined);
        if (!isLockTimeout(err) || attempt >= retries) throw err;
        log(`lock not granted within ${lockTimeoutMs} ms, trying again (${attempt}/${retries})`);
        await sleep(250);
      }
    }
  }
  const step = async () => (await q<{ step: string }>('SELECT step FROM ledger_live_migration')).rows[0].step;
  const setStep = (next: string) => q(`UPDATE ledger_live_migration SET step = $1, updated_at = now()`, [next]);
  const timed = async (name: string, run: () => Promise<void>) => {
    const t0 = Date.now();
    log(`${name}...`);
    await run();
    report.steps[name] = Date.now() - t0;
    log(`${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await checkpoint(`after:${name}`);
  };

  try {
    // One migrate-live at a time (the same lock family as the ledger jobs).
    const locked = await q<{ ok: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended('relay_ledger_job:migrate-live', 0)) AS ok`);
    if (!locked.rows[0].ok) throw new Error('another migrate-live is running against this database');

    const layout = await q<{ kind: string | null; m6: boolean; m7: boolean }>(`
      SELECT (SELECT relkind::text FROM pg_class WHERE oid = to_regclass('transactions')) AS kind,
             to_regclass('knex_migrations') IS NOT NULL AND EXISTS (SELECT 1 FROM knex_migrations WHERE name = '006_round_ended_notifications') AS m6,
             to_regclass('knex_migrations') IS NOT NULL AND EXISTS (SELECT 1 FROM knex_migrations WHERE name = '007_ledger_partitions') AS m7`);
    const { kind, m6, m7 } = layout.rows[0];
    if (m7 || kind === 'p') {
      log('the ledger is already on the partitioned layout');
      const state = await q<{ bound: string | null }>(`SELECT CASE WHEN to_regclass('ledger_live_migration') IS NOT NULL THEN (SELECT legacy_until::text FROM ledger_live_migration) END AS bound`);
      return { ...report, state: 'switched', bound: state.rows[0].bound ?? '' };
    }
    if (!m6 || kind !== 'r') throw new Error('migrate-live takes a database migrated up to 006_round_ended_notifications (the layout before 007)');

    await timed('prepare', async () => {
      await ddl(`
        CREATE TABLE IF NOT EXISTS ledger_live_migration (
          id           integer PRIMARY KEY DEFAULT 1 CHECK (id = 1),
          step         text NOT NULL,
          legacy_until timestamptz NOT NULL,
          cursors      jsonb NOT NULL DEFAULT '{}',
          started_at   timestamptz NOT NULL DEFAULT now(),
          updated_at   timestamptz NOT NULL DEFAULT now()
        );
        INSERT INTO ledger_live_migration (step, legacy_until)
        VALUES ('prepare', (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '2 months') AT TIME ZONE 'UTC')
        ON CONFLICT (id) DO NOTHING;`);
      if ((await step()) !== 'prepare') return;
      await ddl(LEDGER_KEY_TABLES);
      // Nullable columns without a default: a catalog change, no rewrite.
      await ddl('ALTER TABLE transactions ADD COLUMN IF NOT EXISTS settled_by_at timestamptz');
      await ddl('ALTER TABLE transaction_attempts ADD COLUMN IF NOT EXISTS transaction_created_at timestamptz');
      await ddl(TRIGGERS);
      for (const trigger of ATTACH_TRIGGERS) await ddl(trigger);
      await setStep('backfill');
    });

    await timed('backfill', async () => {
      if ((await step()) !== 'backfill') return;
      const cursors = (await q<{ cursors: Record<string, unknown> }>('SELECT cursors FROM ledger_live_migration')).rows[0].cursors;
      const batch = async (table: 'transactions' | 'rounds' | 'attempts', sql: string, from: unknown[]): Promise<unknown[] | null> => {
        await q('BEGIN');
        try {
          const { rows } = await q<{ last: unknown[] | null; n: number }>(sql, [...from, batchSize]);
          const { last, n } = rows[0];
          if (last) await q(`UPDATE ledger_live_migration SET cursors = jsonb_set(cursors, $1, $2::jsonb), updated_at = now()`, [[table], JSON.stringify(last)]);
          await q('COMMIT');
          report.backfilled[table] += n;
          return last;
        } catch (err) {
          await q('ROLLBACK').catch(() => undefined);
          throw err;
        }
      };
      const nil = '00000000-0000-0000-0000-000000000000';
      // Each batch: the keys of its records (ON CONFLICT: the trigger or an earlier run wrote some)
      // and, for bets settled early, settled_by_at.
      for (let from = (cursors.transactions as unknown[] | undefined) ?? [nil]; ; ) {
        const last = await batch(
          'transactions',
          `WITH batch AS (SELECT id, provider_id, transaction_id, created_at, settled_by FROM transactions WHERE id > $1::uuid ORDER BY id LIMIT $2),
                keys AS (INSERT INTO transaction_keys (provider_id, transaction_id, id, created_at)
                         SELECT provider_id, transaction_id, id, created_at FROM batch ON CONFLICT (provider_id, transaction_id) DO NOTHING),
                settled AS (UPDATE transactions b SET settled_by_at = c.created_at FROM batch x JOIN transactions c ON c.id = x.settled_by
                             WHERE b.id = x.id AND b.settled_by_at IS NULL)
           SELECT (SELECT ARRAY[id::text] FROM batch ORDER BY id DESC LIMIT 1) AS last, (SELECT count(*) FROM batch)::int AS n`,
          from,
        );
        await checkpoint('backfill:transactions');
        if (!last) break;
        from = last;
      }
      for (let from = (cursors.rounds as unknown[] | undefined) ?? [nil]; ; ) {
        const last = await batch(
          'rounds',
          `WITH batch AS (SELECT id, provider_id, round_id, created_at FROM rounds WHERE id > $1::uuid ORDER BY id LIMIT $2),
                keys AS (INSERT INTO round_keys (provider_id, round_id, id, created_at)
                         SELECT provider_id, round_id, id, created_at FROM batch ON CONFLICT (provider_id, round_id) DO NOTHING)
           SELECT (SELECT ARRAY[id::text] FROM batch ORDER BY id DESC LIMIT 1) AS last, (SELECT count(*) FROM batch)::int AS n`,
          from,
        );
        await checkpoint('backfill:rounds');
        if (!last) break;
        from = last;
      }
      for (let from = (cursors.attempts as unknown[] | undefined) ?? [nil, '0']; ; ) {
        const last = await batch(
          'attempts',
          `WITH batch AS (SELECT transaction_pk, attempt, transaction_created_at FROM transaction_attempts
                           WHERE (transaction_pk, attempt) > ($1::uuid, $2::int) ORDER BY transaction_pk, attempt LIMIT $3),
                filled AS (UPDATE transaction_attempts a SET transaction_created_at = t.created_at
                             FROM batch b JOIN transactions t ON t.id = b.transaction_pk
                            WHERE b.transaction_created_at IS NULL AND a.transaction_pk = b.transaction_pk AND a.attempt = b.attempt)
           SELECT (SELECT ARRAY[transaction_pk::text, attempt::text] FROM batch ORDER BY transaction_pk DESC, attempt DESC LIMIT 1) AS last,
                  (SELECT count(*) FROM batch)::int AS n`,
          from,
        );
        await checkpoint('backfill:attempts');
        if (!last) break;
        from = last;
      }
      await setStep('indexes');
    });

    await timed('indexes', async () => {
      if ((await step()) !== 'indexes') return;
      const builds = [
        ...Object.entries(LEDGER_LIVE_MIGRATION.primaryKeys).map(([table, p]) => ({
          name: p.index,
          sql: `CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ${p.index} ON ${table} (${p.columns})`,
        })),
        ...parentIndexesConcurrently(),
      ];
      for (const build of builds) {
        // A CONCURRENTLY build that was interrupted leaves an INVALID index behind: build it again.
        const found = await q<{ valid: boolean }>(`SELECT x.indisvalid AS valid FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE i.relname = $1`, [build.name]);
        if (found.rows[0] && !found.rows[0].valid) {
          log(`index ${build.name} was left invalid: dropping it`);
          await q(`DROP INDEX CONCURRENTLY IF EXISTS ${build.name}`);
        }
        await q(build.sql);
        await checkpoint(`index:${build.name}`);
      }
      await setStep('validate');
    });

    await timed('validate', async () => {
      if ((await step()) !== 'validate' && (await step()) !== 'ready') return;
      // A bound less than a week away moves a month on, so the switch is never late for it.
      const moved = await q<{ moved: boolean }>(`
        UPDATE ledger_live_migration SET legacy_until = legacy_until + interval '1 month', updated_at = now()
         WHERE legacy_until < now() + interval '7 days' RETURNING true AS moved`);
      const bound = (await q<{ bound: string }>('SELECT legacy_until::text AS bound FROM ledger_live_migration')).rows[0].bound;
      report.bound = bound;
      const checks: [string, string, string][] = [
        ['transactions', LEDGER_LIVE_MIGRATION.bounds.transactions, `created_at < '${bound}'`],
        ['rounds', LEDGER_LIVE_MIGRATION.bounds.rounds, `created_at < '${bound}'`],
        ['transaction_attempts', LEDGER_LIVE_MIGRATION.bounds.transaction_attempts, `transaction_created_at IS NOT NULL AND transaction_created_at < '${bound}'`],
      ];
      for (const [table, name, expression] of checks) {
        const found = await q<{ valid: boolean }>(`SELECT convalidated AS valid FROM pg_constraint WHERE conname = $1 AND conrelid = $2::regclass`, [name, table]);
        if (found.rows[0] && moved.rowCount) {
          await ddl(`ALTER TABLE ${table} DROP CONSTRAINT ${name}`);
          found.rows.length = 0;
        }
        if (!found.rows[0]) await ddl(`ALTER TABLE ${table} ADD CONSTRAINT ${name} CHECK (${expression}) NOT VALID`);
        if (!found.rows[0]?.valid) {
          // Reads every row under SHARE UPDATE EXCLUSIVE: money calls go on.
          await q(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${name}`);
        }
        await checkpoint(`validate:${table}`);
      }
      await setStep('ready');
    });
    report.bound = (await q<{ bound: string }>('SELECT legacy_until::text AS bound FROM ledger_live_migration')).rows[0].bound;
    if (options.prepareOnly) return report;

    await timed('switch', async () => {
      // 007 alone in its transaction (the switch), so the locks last for it only; then the rest.
      const knex = createKnex(databaseUrl, 1, 'relay-ledger-migrate-live');
      try {
        for (let attempt = 1; ; attempt += 1) {
          report.switchTries = attempt;
          const t0 = Date.now();
          try {
            await knex.migrate.up({ migrationSource, name: '007_ledger_partitions' });
            report.switchMs = Date.now() - t0;
            log(`switch committed in ${report.switchMs} ms`);
            break;
          } catch (err) {
            if (!isLockTimeout(err) || attempt >= retries) throw err;
            log(`switch: locks not granted in time (${Date.now() - t0} ms), trying again (${attempt}/${retries})`);
            await sleep(1000);
          }
        }
      } finally {
        await knex.destroy();
      }
      await migrateToLatest(databaseUrl);
      // The months from the bound on (the job keeps them ahead from now on).
      await q(`SELECT ledger_ensure_partitions(3)`);
    });
    report.state = 'switched';
    return report;
  } finally {
    await client.end().catch(() => undefined);
  }
}
