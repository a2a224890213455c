import knexFactory from 'knex';
import { runRollups } from '@relay/admin';
import { PLAYER_BITMAPS, type PlayerBitmapTable } from '@relay/shared';

/**
 * The shape of the reporting benchmark data set, shared by the seed and the benchmark so both
 * agree on names without reading each other's output.
 */
export const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/relay_bench';

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2_500_000);
/** Two transactions per round: the bet (CASH_OUT) and its credit (CASH_IN). */
export const TRANSACTIONS = ROUNDS * 2;
export const CASINOS = 20;
export const GAME_PROVIDERS = 3;
export const GAMES_PER_PROVIDER = 4;
/** The records span this many days, ending at seed time. */
export const SPAN_DAYS = 90;

/** Game providers get 50%, 30% and 20% of the records; the benchmark reads as the largest. */
export const groupId = (n: number) => `bench-grp-${n}`;
export const providerId = (n: number) => `bench-cas-${String(n).padStart(2, '0')}`;
export const gameId = (group: number, n: number) => 900_000 + group * 10 + n;

/** "5M", "30M", "40k": the size of a data set by its transactions. */
export function scaleLabel(transactions: number): string {
  if (transactions >= 1_000_000) return `${Number((transactions / 1_000_000).toFixed(1))}M`;
  if (transactions >= 1_000) return `${Number((transactions / 1_000).toFixed(1))}k`;
  return String(transactions);
}

/**
 * The connection string with every transaction read-only: the benchmarks that read the seeded
 * databases cannot write to them, even by mistake (the seed alone loads them).
 */
export function readOnly(url: string): string {
  const u = new URL(url);
  u.searchParams.set('options', '-c default_transaction_read_only=on');
  return u.toString();
}

/**
 * Catches the daily rollups of a seeded database up with the admin job's own code (runRollups), as
 * production's scheduled job keeps them: totals and reports are then measured through the rollups.
 * The one writer of the benchmarks: it writes only the ledger_rollup_* tables and the player
 * dictionary (ledger_player_ids).
 */
export async function catchUpRollups(url: string): Promise<{ days: number; seconds: number }> {
  const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  const started = process.hrtime.bigint();
  let days = 0;
  try {
    for (;;) {
      const run = await runRollups(db, { maxDays: 31 });
      if (!run) throw new Error('another process holds the rollup job of this database');
      days += run.rolled.length + run.recounted.length + run.bitmapped.length;
      if (!run.rolled.length && !run.recounted.length && !run.bitmapped.length) break;
    }
    // Fresh statistics and visibility maps, as autovacuum gives a production database soon after the
    // job has filled the rollups (the planner otherwise guesses a few rows per table, and the list's
    // counts, rewritten by triggers, would be read row by row instead of from their indexes).
    if (days) {
      await db.raw(`VACUUM (ANALYZE) ledger_rollup_days, ledger_rollup_transactions, ledger_rollup_rounds, ledger_rollup_players, ledger_rollup_unfinished, ledger_rollup_unfinished_counts, ledger_rollup_unfinished_casino_counts, ledger_rollup_unfinished_currency_counts,
        ledger_rollup_transactions_by_status, ledger_rollup_rounds_by_status, ledger_rollup_transactions_by_casino, ledger_rollup_rounds_by_casino,
        ledger_rollup_transactions_by_studio, ledger_rollup_rounds_by_studio, ledger_rollup_unfinished_casino_currency_counts,
        ledger_player_ids, ledger_rollup_player_bits_days, ledger_rollup_player_spans,
        ${Object.values<PlayerBitmapTable>(PLAYER_BITMAPS).flatMap((t) => [t.table, t.spans, t.counts].filter((name): name is string => Boolean(name))).join(', ')}`);
    }
  } finally {
    await db.destroy();
  }
  return { days, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}
