import type pg from 'pg';
import { CASINOS, GAMES_PER_PROVIDER, ROUNDS, SPAN_DAYS, gameId } from './reporting-data';

/**
 * The benchmark ledger's rows, generated inside PostgreSQL (INSERT ... SELECT over generate_series):
 * the reporting seed loads them into a reporting database, the first-copy benchmark into a money
 * database. Both tables have the same columns on either database. Rows are placed by a table
 * `bench_seed_info (seeded_at)` the caller fills first: they span SPAN_DAYS days ending then.
 */

export type Query = (sql: string, values?: unknown[]) => Promise<pg.QueryResult>;

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

export const INSERT_ROUNDS = (lo: number, hi: number) => `
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
export const INSERT_TRANSACTIONS = (lo: number, hi: number) => `
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

/**
 * Loads ROUNDS rounds and their transactions and idempotency keys, after making the partitions of the
 * months they span (nothing lands in a default partition). The caller drops and rebuilds secondary
 * indexes around it when it wants the load fast.
 */
export async function loadLedgerRows(q: Query, step: (what: string) => void): Promise<void> {
  await q(`SELECT ledger_create_partition(p, m::date)
             FROM generate_series(date_trunc('month', (now() - interval '${SPAN_DAYS} days') AT TIME ZONE 'UTC'),
                                  date_trunc('month', now() AT TIME ZONE 'UTC'), interval '1 month') m,
                  unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) p`);
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
}
