import { randomBytes, randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { dropDatabase, loadConfig } from '@relay/shared';
import { ledgerCount, ledgerCounts, migrateReporting } from '../src';
import { reportingJobs } from '../src/jobs';
import { runReportingRetention } from '../src/jobs/reporting-retention';

/**
 * The reporting database's own retention (services/admin ledger/reporting-retention): whole months
 * older than REPORTING_RETENTION_MONTHS leave it, their counts stay (reports), the lists stop
 * counting them, and a month whose partition is busy waits for a later run, whole.
 */
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const url = `${base}/relay_reporting_retention_${Date.now()}_${randomBytes(3).toString('hex')}`;
let db: Knex;
let client: pg.Client;

const monthStart = (monthsAgo: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsAgo, 1));
};
const day = (at: Date) => at.toISOString().slice(0, 10);

async function insertAt(at: Date, n: number): Promise<void> {
  const created = new Date(at.getTime() + 3_600_000).toISOString();
  await db('transactions').insert(Array.from({ length: n }, (_, i) => ({
    id: randomUUID(), provider_id: 'c1', transaction_id: `t-${randomUUID()}`, category: 'CASH_OUT', status: 'SUCCESS', group_id: 'g1', game_id: 1,
    player_id: `p${i}`, session_id: 's', round_id: `r${i}`, amount: '2.50', currency: 'EUR', language: 'en', request_fingerprint: 'f',
    claimed_at: created, created_at: created,
  })));
}

const partitionsOf = async (monthsAgo: number) =>
  (await db.raw(`SELECT partition FROM ledger_partitions WHERE month = ?::date ORDER BY 1`, [day(monthStart(monthsAgo))])).rows.map((r: { partition: string }) => r.partition);

const narrow = (q: Knex.QueryBuilder, alias: string) => q.where(`${alias}.group_id`, 'g1');
const listed = async () => Number((await db.raw('?', [ledgerCount(db, { table: 'transactions', retainedOnly: true, narrow })])).rows[0].total);
const reported = async () => Number((await db.raw('?', [ledgerCounts(db, { table: 'transactions', retainedOnly: false, dims: [], narrow })])).rows[0].n);

beforeAll(async () => {
  await migrateReporting(url);
  db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const monthsAgo of [9, 8, 7]) {
    await db.raw(`SELECT ledger_create_partition(p, ?::date) FROM unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) p`, [day(monthStart(monthsAgo))]);
  }
  await insertAt(monthStart(9), 3);
  await insertAt(monthStart(8), 4);
  await insertAt(monthStart(7), 5);
  await insertAt(monthStart(0), 6);
}, 60000);

afterAll(async () => {
  await client?.end();
  await db?.destroy();
  await dropDatabase(url);
}, 120_000);

describe('When the reporting database drops its months past REPORTING_RETENTION_MONTHS', () => {
  it('then a month whose partition is busy stays whole for a later run', async () => {
    const holder = await db.transaction();
    try {
      await holder.raw(`LOCK TABLE ${(await partitionsOf(9)).find((p: string) => p.startsWith('transactions_'))} IN ACCESS SHARE MODE`);
      await expect(runReportingRetention(client, { retentionMonths: 8, lockTimeoutMs: 100 })).rejects.toThrow(/lock timeout/);
    } finally {
      await holder.rollback();
    }
    expect(await partitionsOf(9)).toHaveLength(3);
    expect(await db('ledger_retained').select()).toEqual([]);
    expect(await listed()).toBe(18);
  });

  it('then the old months leave, the lists count from the first month kept, and the reports keep every month', async () => {
    expect(await runReportingRetention(client, { retentionMonths: 8 })).toEqual([day(monthStart(9)).slice(0, 7)]);
    expect(await partitionsOf(9)).toEqual([]);
    expect(await partitionsOf(8)).toHaveLength(3);
    expect(await db('ledger_retained').select('ledger', db.raw(`to_char(since, 'YYYY-MM-DD') AS since`)).orderBy('ledger')).toEqual([
      { ledger: 'rounds', since: day(monthStart(8)) },
      { ledger: 'transactions', since: day(monthStart(8)) },
    ]);
    expect(Number((await db('transactions').count({ n: '*' }))[0].n)).toBe(15);
    expect(await listed()).toBe(15);
    expect(await reported()).toBe(18);
    // Nothing more is due: a second run drops nothing.
    expect(await runReportingRetention(client, { retentionMonths: 8 })).toEqual([]);
    expect(await runReportingRetention(client, { retentionMonths: 7 })).toEqual([day(monthStart(8)).slice(0, 7)]);
    expect(await listed()).toBe(11);
    expect(await reported()).toBe(18);
  });

  it('then the admin service runs it only when configured, and refuses a retention not longer than the money database\'s or shorter than the idempotency window', () => {
    const names = (env: Record<string, string>) => reportingJobs(loadConfig({ ...env }), { info: () => undefined } as never).map((j) => j.name);
    expect(names({})).toEqual(['reporting-partitions', 'counts-arm']);
    expect(names({ REPORTING_RETENTION_MONTHS: '13', LEDGER_RETENTION_MONTHS: '12' })).toEqual(['reporting-partitions', 'counts-arm', 'reporting-retention']);
    // Not shorter than, nor equal to, the money database's retention; never while the money database keeps everything.
    expect(() => loadConfig({ REPORTING_RETENTION_MONTHS: '6', LEDGER_RETENTION_MONTHS: '12' })).toThrow(/REPORTING_RETENTION_MONTHS/);
    expect(() => loadConfig({ REPORTING_RETENTION_MONTHS: '12', LEDGER_RETENTION_MONTHS: '12' })).toThrow(/REPORTING_RETENTION_MONTHS/);
    expect(() => loadConfig({ REPORTING_RETENTION_MONTHS: '13' })).toThrow(/LEDGER_RETENTION_MONTHS, which must be set/);
    expect(() => loadConfig({ REPORTING_RETENTION_MONTHS: '4', LEDGER_RETENTION_MONTHS: '2', IDEMPOTENCY_RETENTION_DAYS: '120' })).toThrow(/IDEMPOTENCY_RETENTION_DAYS/);
  });
});
