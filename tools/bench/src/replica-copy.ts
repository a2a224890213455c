import { localServer, ownCluster } from '@relay/platform';
import os from 'node:os';
import pg from 'pg';
import { dropDatabase, dropSubscription, ensureDatabaseExists, replicationBarrier, withClient } from '@relay/shared';
import { awaitCounts, migrateToLatest, prepareDatabases } from '@relay/ledger';
import { machine, recordResult } from './harness';
import { loadLedgerRows, type Query } from './ledger-rows';
import { ROUNDS, TRANSACTIONS, scaleLabel } from './reporting-data';

/**
 * A reporting database created from nothing catches up with a money database that already holds
 * the benchmark ledger (5M transactions): the runbook's "reporting database lost" repair, measured.
 * The money database is loaded once (kept between runs, like the reporting seeds); each run drops
 * the reporting database and its subscription, then times the product's own set-up
 * (prepareDatabases: create, migrate, mirror the partitions, subscribe), the first copy of every
 * published table (the count triggers fire for every copied row, so the counts come out exact), and
 * a replication barrier. The copy is checked: every row arrived and the counts match the rows.
 *
 * The reporting database runs on a server of its own, as in production: on one server, the copy's own
 * writes (every reporting index, the counts) are WAL that the new slot retains, and at 5M
 * transactions they passed max_slot_wal_keep_size (2GB) and lost the slot before the copy finished
 * (docs/deploying.md, "Sizing").
 *
 *   BENCH_DATABASE_BASE_URL   the money database's server, wal_level=logical (default: the machine's
 *                             when it has it, else the cluster the demo and the tests run)
 *   BENCH_REPORTING_BASE_URL  the reporting database's server (default: a cluster of our own on port
 *                             5441, made on first use like the tests' cluster)
 *   BENCH_ROUNDS             rounds in the money database (default 2500000: 5M transactions)
 *   BENCH_RESEED=1           reload the money database
 */
const SEED_NAME = 'relay_bench_copy';

async function seedMoney(moneyUrl: string, reportingUrl: string): Promise<void> {
  await ensureDatabaseExists(moneyUrl);
  await migrateToLatest(moneyUrl);
  const client = new pg.Client({ connectionString: moneyUrl, application_name: 'relay-bench-seed' });
  await client.connect();
  const q: Query = (sql, values) => client.query(sql, values);
  try {
    await q(`CREATE TABLE IF NOT EXISTS bench_seed_info (rounds bigint NOT NULL, transactions bigint NOT NULL, seeded_at timestamptz NOT NULL, finished boolean NOT NULL DEFAULT false)`);
    const done = (await q(`SELECT rounds, finished FROM bench_seed_info`)).rows[0];
    if (done?.finished && Number(done.rounds) === ROUNDS && process.env.BENCH_RESEED !== '1') return;
    // A reporting database subscribed to the old rows would only slow the load.
    await dropSubscription(moneyUrl, reportingUrl);
    await dropDatabase(reportingUrl);
    const started = Date.now();
    const step = (what: string) => console.error(`[seed ${((Date.now() - started) / 1000).toFixed(1)}s] ${what}`);
    await q(`SET synchronous_commit = off`);
    await q(`SET maintenance_work_mem = '1GB'`);
    await q(`TRUNCATE transaction_attempts, transactions, rounds, transaction_keys, round_keys`);
    await q(`DELETE FROM bench_seed_info`);
    await q(`INSERT INTO bench_seed_info (rounds, transactions, seeded_at) VALUES ($1, $2, now())`, [ROUNDS, TRANSACTIONS]);
    // The money database's few secondary indexes are rebuilt after the load rather than row by row.
    const secondary = (await q(`
      SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
       WHERE i.schemaname = 'public' AND i.tablename IN ('rounds', 'transactions')
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`)).rows;
    for (const { name } of secondary) await q(`DROP INDEX "${name}"`);
    await loadLedgerRows(q, step);
    for (const { definition } of secondary) await q(String(definition).replace(' ON ONLY ', ' ON '));
    step(`rebuilt ${secondary.length} secondary indexes`);
    for (const table of ['rounds', 'transactions', 'transaction_keys', 'round_keys']) await q(`VACUUM (ANALYZE) ${table}`);
    await q(`UPDATE bench_seed_info SET finished = true`);
    step('loaded');
  } finally {
    await client.end();
  }
}

interface Copied {
  tables: number;
  transactions: number;
  rounds: number;
  countedTransactions: number;
  countedRounds: number;
  counted_cash_outs: number;
  cash_outs: number;
}

async function main(): Promise<void> {
  const server = await localServer(process.env.BENCH_DATABASE_BASE_URL);
  const reportingServer = process.env.BENCH_REPORTING_BASE_URL ?? (await ownCluster(5441)).baseUrl;
  const moneyUrl = `${server.baseUrl}/${SEED_NAME}`;
  const reportingUrl = `${reportingServer}/${SEED_NAME}_reporting`;
  await seedMoney(moneyUrl, reportingUrl);

  await dropSubscription(moneyUrl, reportingUrl);
  await dropDatabase(reportingUrl);
  await withClient(moneyUrl, (c) => c.query('CHECKPOINT'));
  const load = os.loadavg()[0];
  const t0 = Date.now();
  // Not waiting for the copy here: its phases are timed below (the admin service's counts-arm job
  // would make the counts in production; the bench makes them itself, with the same function).
  await prepareDatabases(moneyUrl, reportingUrl, { copyWaitMs: 0 });
  const prepared = Date.now();

  const reporting = new pg.Client({ connectionString: reportingUrl, application_name: 'relay-bench-copy' });
  const money = new pg.Client({ connectionString: moneyUrl, application_name: 'relay-bench-copy' });
  await reporting.connect();
  await money.connect();
  try {
    let lastReport = 0;
    for (;;) {
      const { rows } = await reporting.query<{ pending: number; total: number }>(
        `SELECT count(*) FILTER (WHERE srsubstate <> 'r')::int AS pending, count(*)::int AS total FROM pg_subscription_rel`,
      );
      if (rows[0].total > 0 && rows[0].pending === 0) break;
      if (Date.now() - lastReport > 30_000) {
        lastReport = Date.now();
        const progress = await reporting.query<{ relid: string; tuples: string }>(`SELECT relid::regclass::text AS relid, tuples_processed::text AS tuples FROM pg_stat_progress_copy`);
        console.error(`[copy ${((Date.now() - prepared) / 1000).toFixed(0)}s] ${rows[0].pending} of ${rows[0].total} tables copying; ${progress.rows.map((r) => `${r.relid}: ${r.tuples} rows`).join(', ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const copied = Date.now();
    if (!(await awaitCounts(reportingUrl, 3_600_000))) throw new Error('the counts were not made');
    const counted = Date.now();
    await replicationBarrier(money, reporting, 600_000);
    const caughtUp = Date.now();

    const count = async (c: pg.Client, sql: string) => Number((await c.query<{ n: string }>(sql)).rows[0].n);
    const result: Copied = {
      tables: await count(reporting, `SELECT count(*) AS n FROM pg_subscription_rel`),
      transactions: await count(reporting, `SELECT count(*) AS n FROM transactions`),
      rounds: await count(reporting, `SELECT count(*) AS n FROM rounds`),
      countedTransactions: await count(reporting, `SELECT coalesce(sum(n), 0) AS n FROM ledger_counts_transactions`),
      countedRounds: await count(reporting, `SELECT coalesce(sum(n), 0) AS n FROM ledger_counts_rounds`),
      counted_cash_outs: await count(reporting, `SELECT coalesce(sum(n), 0) AS n FROM ledger_counts_players`),
      cash_outs: await count(reporting, `SELECT count(*) AS n FROM transactions WHERE category = 'CASH_OUT' AND status = 'SUCCESS'`),
    };
    const moneyRows = {
      transactions: await count(money, `SELECT count(*) AS n FROM transactions`),
      rounds: await count(money, `SELECT count(*) AS n FROM rounds`),
    };
    const exact = result.transactions === moneyRows.transactions && result.rounds === moneyRows.rounds
      && result.countedTransactions === result.transactions && result.countedRounds === result.rounds && result.counted_cash_outs === result.cash_outs;
    const settings = (await reporting.query<{ name: string; setting: string; unit: string | null }>(
      `SELECT name, setting, unit FROM pg_settings WHERE name IN ('max_sync_workers_per_subscription', 'shared_buffers', 'maintenance_work_mem', 'synchronous_commit') ORDER BY name`,
    )).rows.map((r) => `${r.name} ${r.setting}${r.unit ?? ''}`).join(', ');
    const size = async (c: pg.Client) => (await c.query<{ s: string }>(`SELECT pg_size_pretty(pg_database_size(current_database())) AS s`)).rows[0].s;
    const sec = (ms: number) => (ms / 1000).toFixed(1);
    const endLoad = os.loadavg()[0];

    const md = [
      '## Reporting database: first copy from scratch',
      '',
      `Measured ${new Date().toISOString()} by \`tools/bench/src/replica-copy.ts\` (\`npm run bench replica-copy\`, BENCH_REPLICA_COPY=1 in a full run).`,
      `Machine: ${machine()}. 1-minute load average at the start and end: ${load.toFixed(1)} / ${endLoad.toFixed(1)}.`,
      `Reporting server settings: ${settings}.`,
      '',
      `The money database and the reporting database on two servers of this machine (ports ${new URL(moneyUrl).port} and ${new URL(reportingUrl).port}), as production runs them. A money database holding ${scaleLabel(moneyRows.transactions)} transactions (${moneyRows.transactions.toLocaleString('en-US')}) and ${moneyRows.rounds.toLocaleString('en-US')} rounds (${await size(money)}); its reporting database dropped, then made again by the product's own set-up (\`prepareDatabases\`: create, migrate, mirror the money database's partitions, subscribe). Times from the start of the set-up:`,
      '',
      '| phase | seconds |',
      '|---|---:|',
      `| created, migrated and subscribed | ${sec(prepared - t0)} |`,
      `| every published table copied (${result.tables} tables in state \`r\`) | ${sec(copied - t0)} |`,
      `| counts made from the copied rows (the count triggers on, \`ledger_counts_rebuild()\`) | ${sec(counted - t0)} |`,
      `| caught up (a heartbeat written after the copy arrived) | ${sec(caughtUp - t0)} |`,
      '',
      `Copy rate: ${Math.round((result.transactions + result.rounds) / ((copied - prepared) / 1000)).toLocaleString('en-US')} ledger rows per second (transactions and rounds, with every reporting index; the count triggers are off during a first copy). Reporting database size after the copy: ${await size(reporting)}.`,
      '',
      `Checked: transactions ${result.transactions.toLocaleString('en-US')} of ${moneyRows.transactions.toLocaleString('en-US')}, rounds ${result.rounds.toLocaleString('en-US')} of ${moneyRows.rounds.toLocaleString('en-US')}; the counts hold ${result.countedTransactions.toLocaleString('en-US')} transactions, ${result.countedRounds.toLocaleString('en-US')} rounds and ${result.counted_cash_outs.toLocaleString('en-US')} successful cash-outs (${result.cash_outs.toLocaleString('en-US')} in the rows): ${exact ? 'exact' : '**not exact**'}.`,
      '',
      `The copy runs without the count triggers: a table's copy is one transaction, in which each count row's upserts pile up versions nothing can prune until it commits (measured before that change, on this machine at a lower load, 1.4 / 1.0: 647 s until every table was copied, count tables 30 times their size). The counts are made once both ledger tables are copied, in one statement. Money calls go on meanwhile: the copy reads the money database through its slot's snapshot (test/serial/reporting-outage.test.ts drops and recreates a reporting database and finds every record).`,
    ].join('\n');
    recordResult('replica-copy', md, ['BENCH_DATABASE_BASE_URL', 'BENCH_REPORTING_BASE_URL', 'BENCH_ROUNDS']);
    if (!exact) process.exitCode = 1;
  } finally {
    await reporting.end();
    await money.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
