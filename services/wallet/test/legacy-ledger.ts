import knexFactory from 'knex';
import { ensureDatabaseExists, migrationSource, type Knex } from '@relay/shared';

/** Where the old rounds lie: `start` (an SQL timestamptz expression, test-only text) and the seconds they spread over. */
export interface OldLayoutSpan {
  start: string;
  seconds: number;
}

const LAST_91_DAYS: OldLayoutSpan = { start: `now() - interval '91 days'`, seconds: 90 * 86400 };

/**
 * Old-layout data (the tables before 007) over a span of time, by default the last 91 days: a bet
 * and a credit per round, 2 % of rounds left OPEN with their credit FAILED, one early settlement.
 * Used by the live migration's tests and by the retention of a migrated ledger's legacy months.
 */
export async function fillOldLayout(k: Knex, rounds: number, span: OldLayoutSpan = LAST_91_DAYS): Promise<void> {
  const step = span.seconds / rounds;
  await k.raw(`
    INSERT INTO rounds (id, provider_id, round_id, group_id, game_id, player_id, session_id, currency, language, status,
                        bet_amount, bet_transaction_id, payout_amount, opened_at, settled_at, created_at, updated_at)
    SELECT gen_random_uuid(), 'cas-' || (i % 3), 'r-' || i, 'grp-' || (i % 2), 7, 'p-' || (i % 50), 's', CASE WHEN i % 4 = 0 THEN 'USD' ELSE 'EUR' END, 'en',
           CASE WHEN i % 50 = 0 THEN 'OPEN' ELSE 'SETTLED' END, (i % 97 + 1) / 4.0, 'b-' || i,
           CASE WHEN i % 50 = 0 THEN NULL ELSE (i % 89) / 2.0 END, t, t, t, t
      FROM generate_series(1, ${rounds}) i, LATERAL (SELECT ${span.start} + (i * ${step} * interval '1 second') AS t) x`);
  await k.raw(`
    INSERT INTO transactions (id, provider_id, transaction_id, previous_transaction_id, category, status, group_id, game_id, player_id,
                              session_id, round_id, amount, currency, language, balance, request_fingerprint, claimed_at, completed_at, created_at, updated_at)
    SELECT gen_random_uuid(), r.provider_id, CASE WHEN c = 'CASH_OUT' THEN r.bet_transaction_id ELSE 'w-' || r.round_id END,
           CASE WHEN c = 'CASH_IN' THEN r.bet_transaction_id END, c,
           CASE WHEN c = 'CASH_IN' AND r.status = 'OPEN' THEN 'FAILED' ELSE 'SUCCESS' END,
           r.group_id, r.game_id, r.player_id, 's', r.round_id,
           CASE WHEN c = 'CASH_OUT' THEN r.bet_amount ELSE coalesce(r.payout_amount, 1) END, r.currency, 'en', 100, 'f',
           r.created_at, r.created_at, r.created_at + CASE WHEN c = 'CASH_IN' THEN interval '1 second' ELSE interval '0' END, r.created_at
      FROM rounds r CROSS JOIN (VALUES ('CASH_OUT'), ('CASH_IN')) AS cats(c)`);
  await k.raw(`INSERT INTO transaction_attempts (transaction_pk, attempt, request, outcome, started_at)
               SELECT id, 1, json_build_object('amount', amount), status, created_at FROM transactions`);
  await k.raw(`UPDATE transactions b SET settled_by = c.id FROM transactions c
                WHERE b.transaction_id = 'b-100' AND c.transaction_id = 'w-r-100' AND b.provider_id = c.provider_id`);
  await k.raw('VACUUM ANALYZE transactions, transaction_attempts, rounds');
}

/** A new database on the layout before 007 (migrations 001-006 only), filled by fillOldLayout. */
export async function oldLayoutDatabase(url: string, rounds: number, span?: OldLayoutSpan): Promise<Knex> {
  await ensureDatabaseExists(url);
  const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
  const names = (await migrationSource.getMigrations([])) as string[];
  for (const name of names.filter((n) => n < '007')) await db.migrate.up({ migrationSource, name });
  await fillOldLayout(db, rounds, span);
  return db;
}

/** The span of whole months from `monthsBack` months ago to the start of the current one (UTC), less an hour. */
export function wholeMonthsSpan(monthsBack: number): OldLayoutSpan {
  const now = new Date();
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsBack, 1);
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  return { start: `'${new Date(start).toISOString()}'::timestamptz`, seconds: (end - start) / 1000 - 3600 };
}
