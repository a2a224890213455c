import knexFactory from 'knex';

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
 * Fresh statistics and visibility maps of the counts (libs/ledger/src/schema/counts.ts) of a seeded database, as
 * autovacuum gives a production database soon after a load; the counts themselves are kept by
 * triggers (the seed rebuilds them once after its bulk load). Returns the counted days.
 */
export async function analyzeCounts(url: string): Promise<{ days: number; seconds: number }> {
  const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  const started = process.hrtime.bigint();
  try {
    await db.raw('VACUUM (ANALYZE) ledger_counts_transactions, ledger_counts_rounds, ledger_counts_players');
    const { rows } = await db.raw<{ rows: { days: number }[] }>('SELECT count(DISTINCT day)::int AS days FROM ledger_counts_transactions');
    return { days: rows[0]?.days ?? 0, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
  } finally {
    await db.destroy();
  }
}
