import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dropDatabase, MONEY_PATH_SETTINGS, sessionSettings } from '@relay/shared';
import { migrateToLatest } from '@relay/ledger';
import { machine, recordResult } from './harness';
import { hasPgbench, pgbenchScript, pgbenchTps } from './pgbench-floor';

/**
 * How PostgreSQL's plan cache treats the wallet's money statements as monthly partitions
 * accumulate: the wallet's own statements for a cash-out + cash-in pair (the pgbench floor's
 * script), run by pgbench with prepared statements under each plan_cache_mode, on a new database
 * with its partitions as migrated (the current month and those ahead), then with two years of past
 * months added. Why the wallet's connections force generic plans (MONEY_PATH_SETTINGS).
 *
 *   BENCH_PLAN_SECONDS   seconds per measurement (default 8)
 *   BENCH_PLAN_CLIENTS   pgbench clients (default 4)
 *   BENCH_PLAN_MONTHS    past months added for the second measurement (default 24)
 */
const SECONDS = Number(process.env.BENCH_PLAN_SECONDS ?? 8);
const CLIENTS = Number(process.env.BENCH_PLAN_CLIENTS ?? 4);
const PAST_MONTHS = Number(process.env.BENCH_PLAN_MONTHS ?? 24);
const MODES = ['auto', 'force_generic_plan', 'force_custom_plan'] as const;

export async function runPlanCacheBench(): Promise<string> {
  if (!hasPgbench()) throw new Error('pgbench is not installed');
  const dbUrl = `postgres://postgres@127.0.0.1:5432/relay_bench_plans_${Date.now()}_${randomBytes(2).toString('hex')}`;
  const script = pgbenchScript();
  const pairsPerSecond = (mode: string) => pgbenchTps(dbUrl, script, { clients: CLIENTS, seconds: SECONDS, settings: { ...sessionSettings(), plan_cache_mode: mode } });
  await migrateToLatest(dbUrl);
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const partitions = async () =>
      (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_partitions WHERE parent_table = 'transactions'`)).rows[0].n;
    const rows: string[] = [];
    const layouts: [string, () => Promise<void>][] = [
      ['as migrated', async () => undefined],
      [
        `with ${PAST_MONTHS} past months`,
        async () => {
          const tables = (await client.query<{ t: string }>('SELECT DISTINCT parent_table AS t FROM ledger_partitions')).rows.map((r) => r.t);
          for (let month = 1; month <= PAST_MONTHS; month++) {
            for (const table of tables) {
              await client.query(`SELECT ledger_create_partition($1, (date_trunc('month', now() AT TIME ZONE 'UTC') - make_interval(months => $2))::date)`, [table, month]);
            }
          }
        },
      ],
    ];
    for (const [layout, prepare] of layouts) {
      await prepare();
      const count = await partitions();
      // Two rounds, the modes interleaved within each: the ratios are read within a round.
      const perMode = new Map<string, number[]>(MODES.map((m) => [m, []]));
      for (let round = 0; round < 2; round++) for (const mode of MODES) perMode.get(mode)!.push(pairsPerSecond(mode));
      const fmt = (m: string) => perMode.get(m)!.map((v) => Math.round(v).toLocaleString('en')).join(', ');
      rows.push(`| ${layout} | ${count} | ${fmt('auto')} | ${fmt('force_generic_plan')} | ${fmt('force_custom_plan')} |`);
    }
    return [
      '## Money statements and PostgreSQL\'s plan cache',
      '',
      `Measured ${new Date().toISOString()} on ${machine()}. The wallet's statements for a cash-out + cash-in pair (the pgbench`,
      `floor's script: each call's claim, then its outcome with the round's change, each committed), run by pgbench with prepared`,
      `statements, ${CLIENTS} clients, ${SECONDS} s per figure, under each \`plan_cache_mode\`, two rounds with the modes interleaved,`,
      'on a new database: its partitions as migrated (the current month and those ahead), then with past months added, as a',
      'ledger that keeps two years has. Pairs per second (each pair is two money calls), one figure per round.',
      '',
      '| partitions | partitions of transactions | auto (PostgreSQL chooses) | generic plans forced | custom plans forced |',
      '|---|---:|---:|---:|---:|',
      ...rows,
      '',
      `Left to choose, PostgreSQL plans custom plans when the generic plan of a statement over many partitions looks dearer, and`,
      `planning such a statement costs more than running it. The wallet's connections run \`${Object.entries(MONEY_PATH_SETTINGS)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}\``,
      '(services/wallet/test/money-plans.test.ts holds every generic plan of a money statement to unique keys).',
    ].join('\n');
  } finally {
    await client.end();
    await dropDatabase(dbUrl).catch(() => undefined);
  }
}

if (require.main === module) {
  runPlanCacheBench().then(
    (md) => recordResult('plan-cache', md, ['BENCH_PLAN_SECONDS', 'BENCH_PLAN_CLIENTS', 'BENCH_PLAN_MONTHS']),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
