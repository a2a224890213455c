import pg from 'pg';
import { countTriggersSql, migrateReporting } from '@relay/ledger';
import {
  BENCH_DATABASE_URL,
  CASINOS,
  GAME_PROVIDERS,
  GAMES_PER_PROVIDER,
  ROUNDS,
  TRANSACTIONS,
  gameId,
  groupId,
  providerId,
} from './reporting-data';
import { loadLedgerRows, type Query } from './ledger-rows';

/**
 * Loads the reporting benchmark data set into a reporting database (its migrations: every reporting
 * index and the counts, libs/ledger/src/schema/counts.ts): 2,500,000 rounds and 5,000,000 transactions over 20
 * casinos and 3 game providers, spread over 90 days ending now. Everything is generated inside
 * PostgreSQL (INSERT ... SELECT over generate_series); secondary indexes are dropped during the
 * load and rebuilt after it, which is several times faster than maintaining them row by row.
 *
 *   BENCH_DATABASE_URL  target (default postgres://postgres@127.0.0.1:5432/relay_bench; created and
 *                       migrated when missing; its name must contain "bench" since it is wiped)
 *   BENCH_ROUNDS        rounds to load (default 2500000; two transactions each)
 *   BENCH_RESEED=1      reload even when the data set is already there
 */

async function main(): Promise<void> {
  const dbName = new URL(BENCH_DATABASE_URL).pathname.slice(1);
  if (!dbName.includes('bench') && process.env.BENCH_ALLOW_ANY_DB !== '1') {
    throw new Error(`refusing to wipe "${dbName}": the benchmark database name must contain "bench"`);
  }
  await migrateReporting(BENCH_DATABASE_URL);
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL, application_name: 'relay-bench-seed' });
  await client.connect();
  const q = (sql: string, values?: unknown[]) => client.query(sql, values);
  try {
    await q(`CREATE TABLE IF NOT EXISTS bench_seed_info (rounds bigint NOT NULL, transactions bigint NOT NULL, seeded_at timestamptz NOT NULL, finished boolean NOT NULL DEFAULT false)`);
    await q(`CREATE TABLE IF NOT EXISTS bench_saved_indexes (name text PRIMARY KEY, definition text NOT NULL)`);
    await restoreIndexes(q); // a load that died half-way left its dropped indexes here
    const info = await q(`SELECT rounds, transactions, seeded_at, finished FROM bench_seed_info`);
    const done = info.rows[0];
    if (done?.finished && Number(done.rounds) === ROUNDS && process.env.BENCH_RESEED !== '1') {
      console.log(`already seeded at ${done.seeded_at.toISOString()}: ${done.rounds} rounds, ${done.transactions} transactions (BENCH_RESEED=1 reloads)`);
      return;
    }

    const started = Date.now();
    const step = (what: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${what}`);
    // Compiling these one-off statements costs more than it saves.
    await q(`SET jit = off`);
    await q(`SET synchronous_commit = off`);
    await q(`SET maintenance_work_mem = '1GB'`);
    await q(`SET max_parallel_maintenance_workers = 2`);
    await q(`TRUNCATE transaction_attempts, transactions, rounds, transaction_keys, round_keys`);
    await q(`DELETE FROM bench_seed_info`);
    await q(`INSERT INTO bench_seed_info (rounds, transactions, seeded_at) VALUES ($1, $2, now())`, [ROUNDS, TRANSACTIONS]);
    await seedRegistry(q);
    step('registry: game providers, games, casinos, configs');

    // Secondary indexes only; primary keys and the key records' keys stay, as in production. A
    // partitioned table's index is defined ON ONLY the parent; recreated on the parent, it is built on every partition.
    const secondary = await q(`
      SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
      WHERE i.schemaname = 'public' AND i.tablename IN ('rounds', 'transactions')
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`);
    for (const row of secondary.rows) {
      await q(`INSERT INTO bench_saved_indexes (name, definition) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [row.name, row.definition]);
      await q(`DROP INDEX "${row.name}"`);
    }
    step(`dropped ${secondary.rowCount} secondary indexes for the load`);
    // The counts (libs/ledger/src/schema/counts.ts) are rebuilt once after the load rather than row by row.
    await q(countTriggersSql(false));

    await loadLedgerRows(q, step);
    await restoreIndexes(q, step);
    await q(countTriggersSql(true));
    await q(`SELECT ledger_counts_rebuild()`);
    await q(`VACUUM (ANALYZE) ledger_counts_transactions, ledger_counts_rounds, ledger_counts_players`);
    step('counts rebuilt from the rows');
    await q(`VACUUM (ANALYZE) rounds`);
    await q(`VACUUM (ANALYZE) transactions`);
    await q(`VACUUM (ANALYZE) transaction_keys`);
    await q(`VACUUM (ANALYZE) round_keys`);
    step('vacuum analyze (visibility map for index-only scans, fresh statistics)');
    await q(`UPDATE bench_seed_info SET finished = true`);
    const counts = await q(`SELECT (SELECT count(*) FROM rounds) AS rounds, (SELECT count(*) FROM transactions) AS transactions`);
    step(`done: ${counts.rows[0].rounds} rounds, ${counts.rows[0].transactions} transactions`);
  } finally {
    await client.end();
  }
}

async function restoreIndexes(q: Query, step?: (what: string) => void): Promise<void> {
  const saved = await q(`SELECT name, definition FROM bench_saved_indexes ORDER BY name`);
  for (const row of saved.rows) {
    const exists = await q(`SELECT 1 FROM pg_indexes WHERE schemaname = 'public' AND indexname = $1`, [row.name]);
    if (exists.rowCount === 0) await q(String(row.definition).replace(' ON ONLY ', ' ON '));
    await q(`DELETE FROM bench_saved_indexes WHERE name = $1`, [row.name]);
    step?.(`index ${row.name}`);
  }
}

/** Game providers, their games, casinos registered over the last 60 days, and catalog configs. */
async function seedRegistry(q: Query): Promise<void> {
  await q(`DELETE FROM currency_configs WHERE provider_id LIKE 'bench-%'`);
  await q(`DELETE FROM casino_game_configs WHERE provider_id LIKE 'bench-%'`);
  await q(`DELETE FROM game_config_templates WHERE game_id IN (SELECT game_id FROM games WHERE group_id LIKE 'bench-%')`);
  await q(`DELETE FROM games WHERE group_id LIKE 'bench-%'`);
  await q(`DELETE FROM casinos WHERE provider_id LIKE 'bench-%'`);
  await q(`DELETE FROM provider_tokens WHERE group_id LIKE 'bench-%'`);
  await q(`DELETE FROM game_providers WHERE group_id LIKE 'bench-%'`);
  for (let g = 1; g <= GAME_PROVIDERS; g += 1) {
    await q(`INSERT INTO game_providers (group_id, name) VALUES ($1, $2)`, [groupId(g), `Bench provider ${g}`]);
    for (let n = 1; n <= GAMES_PER_PROVIDER; n += 1) {
      await q(`INSERT INTO games (game_id, group_id, name, frontend_url) VALUES ($1, $2, $3, 'https://bench.example/play')`, [gameId(g, n), groupId(g), `Bench game ${g}.${n}`]);
      await q(`INSERT INTO game_config_templates (game_id, properties) VALUES ($1, $2)`, [
        gameId(g, n),
        JSON.stringify([{ name: 'theme', type: 'DROPDOWN', values: ['dark', 'light'], required: true, default: 'dark' }, { name: 'maxPlayers', type: 'NUMBER', required: false, default: 100 }]),
      ]);
    }
  }
  for (let c = 1; c <= CASINOS; c += 1) {
    // A reporting database holds no wallet secret or launch key (its casinos have no such column).
    await q(
      `INSERT INTO casinos (provider_id, name, wallet_url, created_at)
       VALUES ($1, $2, 'http://127.0.0.1:9/wallet', now() - ($3 || ' days')::interval)`,
      [providerId(c), `Bench casino ${c}`, String(c * 3)],
    );
  }
  await q(`
    INSERT INTO casino_game_configs (provider_id, game_id, overrides)
    SELECT c.provider_id, g.game_id, '{"theme":"light"}' FROM casinos c CROSS JOIN games g
    WHERE c.provider_id LIKE 'bench-%' AND g.group_id LIKE 'bench-%'`);
  await q(`
    INSERT INTO currency_configs (id, provider_id, game_id, currency, min_bet, max_bet, default_bet, bet_suggestions, max_win, is_default)
    SELECT gen_random_uuid(), c.provider_id, g.game_id, cur, 0.1, 100, 1, '[0.5, 1, 5, 10]', 10000, cur = 'EUR'
    FROM casinos c CROSS JOIN games g CROSS JOIN unnest(ARRAY['EUR', 'USD', 'GBP']) AS cur
    WHERE c.provider_id LIKE 'bench-%' AND g.group_id LIKE 'bench-%'`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
