import type { Knex } from 'knex';

/**
 * Daily rollups of the money history, for exact totals and reports whose cost depends on the days
 * asked for, not on the ledger's size (docs/ledger.md, "Exact totals").
 *
 * A UTC day is rolled up once it is closed (it has ended and every transaction that started
 * before its end has finished, so every row of it is committed and visible; ledger/rollups in the
 * admin service). A day's rollup holds the rows whose state was final when it was counted:
 * transactions SUCCESS or FAILED, rounds SETTLED. The rows still unfinished then (PENDING
 * transactions, OPEN rounds: few) are listed by key in ledger_rollup_unfinished and read live, so
 * every row of a rolled-up day is in exactly one of the two. Final rows change only by a takeover
 * (FAILED -> PENDING, which rewrites game, amount, currency...), and a takeover marks its day in
 * rollup_stale_days (007): a marked day is read live until the job has recounted it.
 *
 * - ledger_rollup_days: the days counted, and when.
 * - ledger_rollup_transactions: per day and (group, provider, game, currency, category, status):
 *   row count and amount sum.
 * - ledger_rollup_rounds: per day and (group, provider, game, currency, status): count, bet sum
 *   and payout sum.
 * - ledger_rollup_players: the distinct players with a successful bet per day and (group,
 *   provider, game, currency): distinct players of a period are not a sum of daily counts.
 * - ledger_rollup_unfinished: the rows of a counted day that were not final when it was counted.
 *
 * Rollups stay when a month is archived (reports keep the month; list totals skip it).
 */
/** ledger_rollup_live_ranges as 009 made it (whole days only); 019's down restores it. */
export const LIVE_RANGES_OF_WHOLE_DAYS = `CREATE OR REPLACE FUNCTION ledger_rollup_live_ranges(parent text, lo timestamptz, hi timestamptz, require_partition boolean)
      RETURNS TABLE (range_lo timestamptz, range_hi timestamptz) LANGUAGE sql STABLE AS $$
      WITH usable AS (SELECT u.day FROM ledger_rollup_days_usable(parent, lo, hi, require_partition) u),
      islands AS (
        SELECT min(day) AS first, max(day) + 1 AS after
          FROM (SELECT day, day - (row_number() OVER (ORDER BY day))::int AS island FROM usable) x
         GROUP BY island
      ),
      edges AS (
        SELECT (first::timestamp AT TIME ZONE 'UTC') AS a, (after::timestamp AT TIME ZONE 'UTC') AS b FROM islands
      ),
      gaps AS (
        SELECT lag(b, 1, coalesce(lo, '-infinity'::timestamptz)) OVER (ORDER BY a) AS g_lo, a AS g_hi FROM edges
        UNION ALL
        SELECT coalesce((SELECT max(b) FROM edges), coalesce(lo, '-infinity'::timestamptz)), coalesce(hi, 'infinity'::timestamptz)
      )
      SELECT g_lo, g_hi FROM gaps WHERE g_lo < g_hi
    $$;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE ledger_rollup_days (
      day       date PRIMARY KEY,
      rolled_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE ledger_rollup_transactions (
      day         date NOT NULL,
      group_id    text NOT NULL,
      provider_id text NOT NULL,
      game_id     integer NOT NULL,
      currency    text NOT NULL,
      category    text NOT NULL,
      status      text NOT NULL,
      n           bigint NOT NULL,
      amount      numeric NOT NULL,
      PRIMARY KEY (day, group_id, provider_id, game_id, currency, category, status)
    );
    CREATE INDEX ledger_rollup_transactions_provider ON ledger_rollup_transactions (provider_id, day);

    CREATE TABLE ledger_rollup_rounds (
      day           date NOT NULL,
      group_id      text NOT NULL,
      provider_id   text NOT NULL,
      game_id       integer NOT NULL,
      currency      text NOT NULL,
      status        text NOT NULL,
      n             bigint NOT NULL,
      bet_amount    numeric NOT NULL,
      payout_amount numeric NOT NULL,
      PRIMARY KEY (day, group_id, provider_id, game_id, currency, status)
    );
    CREATE INDEX ledger_rollup_rounds_provider ON ledger_rollup_rounds (provider_id, day);

    CREATE TABLE ledger_rollup_players (
      day         date NOT NULL,
      group_id    text NOT NULL,
      provider_id text NOT NULL,
      game_id     integer NOT NULL,
      currency    text NOT NULL,
      player_id   text NOT NULL,
      PRIMARY KEY (day, group_id, provider_id, game_id, currency, player_id)
    );
    CREATE INDEX ledger_rollup_players_provider ON ledger_rollup_players (provider_id, day);

    CREATE TABLE ledger_rollup_unfinished (
      parent     text NOT NULL CHECK (parent IN ('transactions', 'rounds')),
      day        date NOT NULL,
      id         uuid NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (parent, day, id)
    );

    -- The parts of [lo, hi) the rollups of parent do not answer, as created_at ranges to count live:
    -- every instant outside the whole days that are counted, not stale (transactions) and, when
    -- require_partition, in a month that still has its partition (an archived month's rows are
    -- gone from the lists). lo/hi NULL: unbounded.
    CREATE OR REPLACE FUNCTION ledger_rollup_days_usable(parent text, lo timestamptz, hi timestamptz, require_partition boolean)
      RETURNS TABLE (day date) LANGUAGE sql STABLE AS $$
      SELECT d.day FROM ledger_rollup_days d
       WHERE d.day >= coalesce(CASE WHEN (lo AT TIME ZONE 'UTC')::time = '00:00' THEN (lo AT TIME ZONE 'UTC')::date
                                    ELSE (lo AT TIME ZONE 'UTC')::date + 1 END, '-infinity'::date)
         AND d.day < coalesce((hi AT TIME ZONE 'UTC')::date, 'infinity'::date)
         AND (parent <> 'transactions' OR NOT EXISTS (SELECT 1 FROM rollup_stale_days s WHERE s.day = d.day))
         AND (NOT require_partition OR EXISTS (SELECT 1 FROM ledger_partitions p
                                                WHERE p.parent_table = parent AND p.month = date_trunc('month', d.day)::date))
    $$;

    ${LIVE_RANGES_OF_WHOLE_DAYS}
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION IF EXISTS ledger_rollup_live_ranges(text, timestamptz, timestamptz, boolean);
    DROP FUNCTION IF EXISTS ledger_rollup_days_usable(text, timestamptz, timestamptz, boolean);
    DROP TABLE IF EXISTS ledger_rollup_unfinished, ledger_rollup_players, ledger_rollup_rounds, ledger_rollup_transactions, ledger_rollup_days;
  `);
}
