import pg from 'pg';
import { countTriggersSql, migrateReporting } from '@relay/ledger';
import {
  BENCH_DATABASE_URL,
  CASINOS,
  GAME_PROVIDERS,
  GAMES_PER_PROVIDER,
  ROUNDS,
  SPAN_DAYS,
  TRANSACTIONS,
  gameId,
  groupId,
  providerId,
} from './reporting-data';

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

const CHUNK = 250_000;

/**
 * Per-round attributes from hashes of the round number, so attributes are independent of each
 * other (no group that only ever plays in EUR) and the load is reproducible.
 * 1% of rounds stay OPEN: half have a FAILED credit (owed), half a PENDING one (never answered).
 */
function roundSource(lo: number, hi: number): string {
  const h = (salt: number, mod: number) => `((hashint8(i * 8 + ${salt})::bigint + 2147483648) % ${mod})`;
  return `
    SELECT i,
      seeded_at - interval '${SPAN_DAYS} days' + ((i - 1) * ${(SPAN_DAYS * 86_400_000_000) / ROUNDS}::numeric) * interval '1 microsecond' AS t,
      CASE WHEN ${h(0, 10)} < 5 THEN 1 WHEN ${h(0, 10)} < 8 THEN 2 ELSE 3 END AS g,
      ${h(1, CASINOS)} + 1 AS casino,
      ${h(2, GAMES_PER_PROVIDER)} + 1 AS game,
      'player-' || ${h(3, 50_000)} AS player,
      CASE WHEN ${h(4, 10)} < 6 THEN 'EUR' WHEN ${h(4, 10)} < 9 THEN 'USD' ELSE 'GBP' END AS currency,
      ${h(5, 100)} = 0 AS is_open,
      ${h(6, 2)} = 0 AS credit_failed,
      (${h(7, 10_000)} + 1) / 100.0 AS bet,
      ${h(5, 3)} = 1 AS won,
      round(1 + ${h(6, 500)} / 100.0, 2) AS multiplier,
      (5 + ${h(7, 60)}) * interval '1 second' AS play_time
    FROM generate_series(${lo}, ${hi}) AS i, bench_seed_info`;
}

const INSERT_ROUNDS = (lo: number, hi: number) => `
  INSERT INTO rounds (id, provider_id, round_id, group_id, game_id, player_id, session_id, currency, language, status,
    bet_amount, bet_transaction_id, payout_amount, applied_multiplier, settle_transaction_id, settle_reason, outcome,
    game_data, settlement_data, opened_at, settled_at, created_at, updated_at)
  SELECT gen_random_uuid(),
    'bench-cas-' || lpad(casino::text, 2, '0'), 'r-' || i, 'bench-grp-' || g, ${gameId(0, 0)} + g * 10 + game, player,
    's-' || player || '-' || (i / 50), currency, 'en',
    CASE WHEN is_open THEN 'OPEN' ELSE 'SETTLED' END,
    bet, 'tx-' || i || '-bet',
    CASE WHEN is_open THEN NULL WHEN won THEN round(bet * multiplier, 2) ELSE 0 END,
    CASE WHEN is_open THEN NULL WHEN won THEN multiplier ELSE 0 END,
    CASE WHEN is_open THEN NULL ELSE 'tx-' || i || '-win' END,
    CASE WHEN is_open THEN NULL WHEN won THEN 'NORMAL_WIN' ELSE 'BET_LOST' END,
    CASE WHEN is_open THEN NULL WHEN won THEN 'win' ELSE 'lost' END,
    json_build_object('seat', i % 6, 'autoCashout', multiplier),
    CASE WHEN is_open THEN NULL ELSE json_build_object('crashPoint', multiplier) END,
    t, CASE WHEN is_open THEN NULL ELSE t + play_time END, t, CASE WHEN is_open THEN t ELSE t + play_time END
  FROM (${roundSource(lo, hi)}) s`;

/** The bet and its credit of every round; credits of open rounds failed or never got an answer. */
const INSERT_TRANSACTIONS = (lo: number, hi: number) => `
  INSERT INTO transactions (id, provider_id, transaction_id, previous_transaction_id, category, status, group_id, game_id,
    player_id, session_id, round_id, amount, currency, language, reason, applied_multiplier, bet_amount, is_retry, balance,
    error_code, error_message, request_fingerprint, claimed_at, completed_at, created_at, updated_at)
  SELECT gen_random_uuid(), 'bench-cas-' || lpad(casino::text, 2, '0'),
    CASE WHEN k = 0 THEN 'tx-' || i || '-bet' ELSE 'tx-' || i || '-win' END,
    CASE WHEN k = 0 THEN NULL ELSE 'tx-' || i || '-bet' END,
    CASE WHEN k = 0 THEN 'CASH_OUT' ELSE 'CASH_IN' END,
    CASE WHEN k = 0 OR NOT is_open THEN 'SUCCESS' WHEN credit_failed THEN 'FAILED' ELSE 'PENDING' END,
    'bench-grp-' || g, ${gameId(0, 0)} + g * 10 + game, player, 's-' || player || '-' || (i / 50), 'r-' || i,
    CASE WHEN k = 0 THEN bet WHEN is_open THEN round(bet * 2, 2) WHEN won THEN round(bet * multiplier, 2) ELSE 0 END,
    currency, 'en',
    CASE WHEN k = 0 THEN NULL WHEN is_open OR won THEN 'NORMAL_WIN' ELSE 'BET_LOST' END,
    CASE WHEN k = 0 THEN NULL WHEN is_open THEN 2 WHEN won THEN multiplier ELSE 0 END,
    CASE WHEN k = 0 THEN NULL ELSE bet END,
    false,
    CASE WHEN k = 1 AND is_open THEN NULL ELSE 1000 + (i % 100000) / 100.0 END,
    CASE WHEN k = 1 AND is_open AND credit_failed THEN 'INTEGRATION_TIMED_OUT' END,
    CASE WHEN k = 1 AND is_open AND credit_failed THEN 'Casino did not answer within 10000 ms' END,
    'bench',
    ts, CASE WHEN k = 1 AND is_open AND NOT credit_failed THEN NULL ELSE ts + interval '85 milliseconds' END, ts, ts
  FROM (
    SELECT s.*, k, CASE WHEN k = 0 THEN t - interval '90 milliseconds' ELSE t + play_time END AS ts
    FROM (${roundSource(lo, hi)}) s CROSS JOIN (VALUES (0), (1)) AS kinds(k)
  ) x`;

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
    // The months the data spans get their partitions first (the migration made only the current
    // month and the months ahead): nothing lands in the default partitions.
    await q(`SELECT ledger_create_partition(p, m::date)
               FROM generate_series(date_trunc('month', (now() - interval '${SPAN_DAYS} days') AT TIME ZONE 'UTC'),
                                    date_trunc('month', now() AT TIME ZONE 'UTC'), interval '1 month') m,
                    unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) p`);
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

    for (let lo = 1; lo <= ROUNDS; lo += CHUNK) {
      const hi = Math.min(ROUNDS, lo + CHUNK - 1);
      await q(INSERT_ROUNDS(lo, hi));
      step(`rounds ${lo}..${hi}`);
      await q(INSERT_TRANSACTIONS(lo, hi));
      step(`transactions of rounds ${lo}..${hi}`);
    }
    // The idempotency keys of every record, as the wallet's claims would have written them.
    await q(`INSERT INTO transaction_keys (provider_id, transaction_id, id, created_at) SELECT provider_id, transaction_id, id, created_at FROM transactions`);
    await q(`INSERT INTO round_keys (provider_id, round_id, id, created_at) SELECT provider_id, round_id, id, created_at FROM rounds`);
    step('transaction and round keys');
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

type Query = (sql: string, values?: unknown[]) => Promise<pg.QueryResult>;

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
