import { randomBytes } from 'node:crypto';
import { createKnex, dropDatabase } from '@relay/shared';
import { migrateReporting, migrateToLatest, mirrorPartitions } from './migrate';
import { reportingMigrationSource } from './migrations';

/**
 * The baselines (issue 34's squash): a new database runs them; a database built by the migrations
 * 001-034 they replace takes its baseline's row without running it, then the migrations after it;
 * a database part-way through that chain is refused.
 */
describe('migrations from a baseline', () => {
  const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
  const urls: string[] = [];
  const newUrl = () => {
    const url = `${base}/relay_test_baseline_${Date.now()}_${randomBytes(3).toString('hex')}`;
    urls.push(url);
    return url;
  };
  /** The chain before the squash, as a database built by it records it. */
  const OLD_CHAIN = [
    '001_initial', '002_lean_money_writes', '003_early_settlement', '004_backoffice_accounts', '005_backoffice_money_views',
    '006_round_ended_notifications', '007_ledger_partitions', '008_ledger_archives', '009_ledger_rollups', '010_attempts_started_brin',
    '011_ledger_legacy_partition', '012_reporting_sort_indexes', '013_rollup_unfinished_scope', '014_ledger_legacy_retention',
    '015_status_created_index', '016_casino_time_indexes', '017_failed_open_indexes', '018_ledger_removed_rollups', '019_rollup_partial_day',
    '020_player_bitmaps', '021_late_completion_indexes', '022_player_bits_by_casino', '023_unfinished_list_covering', '024_unfinished_counts',
    '025_unfinished_fresh', '026_unfinished_casino_counts', '027_late_keys_function', '028_unfinished_currency_counts',
    '029_rollups_by_status', '030_report_rollups', '031_player_bit_spans', '032_player_counts', '033_reporting_replica',
  ];

  /**
   * Builds a reporting database with the baseline, then makes it one of the previous release: its
   * record rewritten to `names`, its counts gone (that release had the daily rollups), one row in
   * its ledger, and a table the previous release still reads (which nothing drops now).
   */
  async function recordedAs(names: string[]): Promise<string> {
    const url = newUrl();
    await migrateReporting(url);
    const db = createKnex(url, 1, 'relay-test-baseline');
    try {
      await db.raw('DELETE FROM knex_migrations');
      for (const [i, name] of names.entries()) {
        await db.raw(`INSERT INTO knex_migrations (name, batch, migration_time) VALUES (?, ?, now())`, [name, i < 32 ? 1 : 2]);
      }
      await db.raw('DROP TABLE ledger_counts_transactions, ledger_counts_rounds, ledger_counts_players, ledger_retained, ledger_counts_pending CASCADE');
      await db.raw('DROP FUNCTION ledger_count_transaction, ledger_count_round, ledger_counts_forget, ledger_counts_rebuild CASCADE');
      await db.raw(`INSERT INTO transactions (id, provider_id, transaction_id, category, status, group_id, game_id, player_id, session_id, round_id,
                      amount, currency, language, request_fingerprint)
                    VALUES (gen_random_uuid(), 'c1', 't1', 'CASH_OUT', 'SUCCESS', 'g1', 1, 'p1', 's', 'r', 12.5, 'EUR', 'en', 'f')`);
      await db.raw('CREATE TABLE rollup_stale_days (day date PRIMARY KEY, marked_at timestamptz NOT NULL DEFAULT now())');
    } finally {
      await db.destroy();
    }
    return url;
  }

  async function recorded(url: string): Promise<{ names: string[]; counted: string | null; previousKept: boolean; partitions: number }> {
    const db = createKnex(url, 1, 'relay-test-baseline');
    try {
      const { rows } = await db.raw<{ rows: { name: string }[] }>('SELECT name FROM knex_migrations ORDER BY id');
      const present = await db.raw<{ rows: { t: string | null }[] }>(`SELECT to_regclass('ledger_counts_transactions')::text AS t`);
      const counted = present.rows[0].t ? (await db.raw<{ rows: { n: string | null }[] }>('SELECT sum(n)::text AS n FROM ledger_counts_transactions')).rows[0].n : null;
      const kept = await db.raw<{ rows: { t: string | null }[] }>(`SELECT to_regclass('rollup_stale_days')::text AS t`);
      const parts = await db.raw<{ rows: { n: number }[] }>(`SELECT count(*)::int AS n FROM ledger_partitions`);
      return { names: rows.map((r) => r.name), counted, previousKept: kept.rows[0].t !== null, partitions: parts.rows[0].n };
    } finally {
      await db.destroy();
    }
  }

  afterAll(async () => {
    for (const url of urls) await dropDatabase(url);
  }, 60_000);

  it('When a database is new, then each runs its baseline and the migrations after it, and the ledger has its months ahead', async () => {
    const money = newUrl();
    const reporting = newUrl();
    expect(await migrateToLatest(money)).toEqual(['001_money_baseline', '002_money_free_rounds', '003_money_free_rounds_mode', '004_money_free_round_plays']);
    expect(await migrateReporting(reporting)).toEqual(['001_reporting_baseline', '002_reporting_counts', '003_reporting_first_copy']);
    // Three tables, each with its default partition, the current month and three ahead.
    expect((await recorded(money)).partitions).toBe(15);
    expect((await recorded(reporting)).partitions).toBe(15);
    expect(await migrateToLatest(money)).toEqual([]);
  }, 60_000);

  it.each([
    ['the previous release (001-033)', OLD_CHAIN],
    ["this release's development (001-034)", [...OLD_CHAIN, '034_ledger_counts']],
  ])('When a reporting database was built by %s, then it takes the baseline without running it, gets its counts from its rows, and keeps what the previous release reads', async (_, chain) => {
    const url = await recordedAs(chain);
    expect(await migrateReporting(url)).toEqual(['002_reporting_counts', '003_reporting_first_copy']);
    expect(await recorded(url)).toEqual({ names: [reportingMigrationSource.baseline, '002_reporting_counts', '003_reporting_first_copy'], counted: '1', previousKept: true, partitions: 15 });
    expect(await migrateReporting(url)).toEqual([]);
  }, 60_000);

  it('When the reporting database is prepared, then it has every month the money database has, before its first copy', async () => {
    const money = newUrl();
    const reporting = newUrl();
    await migrateToLatest(money);
    await migrateReporting(reporting);
    const db = createKnex(money, 1, 'relay-test-baseline');
    try {
      await db.raw(`SELECT ledger_create_partition(p, '2024-02-01') FROM unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) p`);
    } finally {
      await db.destroy();
    }
    expect(await mirrorPartitions(money, reporting)).toBe(3);
    expect((await recorded(reporting)).partitions).toBe(18);
    expect(await mirrorPartitions(money, reporting)).toBe(0);
  }, 60_000);

  it('When a database stopped part-way through the squashed chain, then it is refused with the step it is at and nothing runs', async () => {
    const url = await recordedAs(OLD_CHAIN.slice(0, 21));
    await expect(migrateReporting(url)).rejects.toThrow(/stop at 021_late_completion_indexes.*run the previous release's migrations/);
    expect((await recorded(url)).names).toEqual(OLD_CHAIN.slice(0, 21));
  }, 60_000);
});
