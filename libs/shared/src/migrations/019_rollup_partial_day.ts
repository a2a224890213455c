import type { Knex } from 'knex';
import { LIVE_RANGES_OF_WHOLE_DAYS } from './009_ledger_rollups';
import { DAYS_USABLE_OF_014 } from './014_ledger_legacy_retention';

/**
 * The rollup job also counts the day that has not closed yet, up to a watermark W (docs/ledger.md,
 * "Exact totals"; services/admin ledger/rollups): W is chosen by the rule that closes a day, applied
 * to an instant, so every row created before W is committed and visible and none can be added.
 * Readers then count live only [W, now) of that day instead of all of it.
 *
 * - ledger_rollup_days.counted_until: NULL, the whole day is counted; else the day is counted for
 *   [day, counted_until) only.
 * - ledger_rollup_days_usable: a partial day is usable only when the range asked for covers all of
 *   [day, counted_until) (014's conditions otherwise unchanged).
 * - ledger_rollup_live_ranges: a usable partial day leaves [counted_until, ...) to be counted live.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_rollup_days ADD COLUMN IF NOT EXISTS counted_until timestamptz;

    CREATE OR REPLACE FUNCTION ledger_rollup_days_usable(parent text, lo timestamptz, hi timestamptz, require_partition boolean)
      RETURNS TABLE (day date) LANGUAGE sql STABLE AS $$
      SELECT d.day FROM ledger_rollup_days d
       WHERE d.day >= coalesce(CASE WHEN (lo AT TIME ZONE 'UTC')::time = '00:00' THEN (lo AT TIME ZONE 'UTC')::date
                                    ELSE (lo AT TIME ZONE 'UTC')::date + 1 END, '-infinity'::date)
         AND d.day <= coalesce((hi AT TIME ZONE 'UTC')::date, 'infinity'::date)
         AND CASE WHEN d.counted_until IS NULL THEN d.day < coalesce((hi AT TIME ZONE 'UTC')::date, 'infinity'::date)
                  ELSE d.counted_until <= coalesce(hi, 'infinity'::timestamptz) END
         AND (parent <> 'transactions' OR NOT EXISTS (SELECT 1 FROM rollup_stale_days s WHERE s.day = d.day)
              OR EXISTS (SELECT 1 FROM ledger_archives a
                          WHERE a.month = date_trunc('month', d.day)::date AND a.state IN ('removing', 'archived')))
         AND (NOT require_partition
              OR ((EXISTS (SELECT 1 FROM ledger_partitions p
                            WHERE p.parent_table = parent AND p.month = date_trunc('month', d.day)::date)
                   OR ledger_partition_covers(parent, d.day::timestamp AT TIME ZONE 'UTC', (d.day + 1)::timestamp AT TIME ZONE 'UTC'))
                  AND NOT EXISTS (SELECT 1 FROM ledger_archives a
                                   WHERE a.month = date_trunc('month', d.day)::date AND a.state IN ('removing', 'archived'))))
    $$;

    -- The parts of [lo, hi) the usable rollups do not answer: the gaps between the counted spans
    -- ([day, day + 1) or [day, counted_until)), sorted, and after the last one.
    CREATE OR REPLACE FUNCTION ledger_rollup_live_ranges(parent text, lo timestamptz, hi timestamptz, require_partition boolean)
      RETURNS TABLE (range_lo timestamptz, range_hi timestamptz) LANGUAGE sql STABLE AS $$
      WITH spans AS (
        SELECT (d.day::timestamp AT TIME ZONE 'UTC') AS a, coalesce(d.counted_until, (d.day + 1)::timestamp AT TIME ZONE 'UTC') AS b
          FROM ledger_rollup_days_usable(parent, lo, hi, require_partition) u JOIN ledger_rollup_days d ON d.day = u.day
      ),
      gaps AS (
        SELECT lag(b, 1, coalesce(lo, '-infinity'::timestamptz)) OVER (ORDER BY a) AS g_lo, a AS g_hi FROM spans
        UNION ALL
        SELECT coalesce((SELECT max(b) FROM spans), coalesce(lo, '-infinity'::timestamptz)), coalesce(hi, 'infinity'::timestamptz)
      )
      SELECT g_lo, g_hi FROM gaps WHERE g_lo < g_hi
    $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    -- Partial days would read as whole ones under the older functions.
    DELETE FROM ledger_rollup_unfinished u USING ledger_rollup_days d WHERE d.day = u.day AND d.counted_until IS NOT NULL;
    DELETE FROM ledger_rollup_transactions r USING ledger_rollup_days d WHERE d.day = r.day AND d.counted_until IS NOT NULL;
    DELETE FROM ledger_rollup_rounds r USING ledger_rollup_days d WHERE d.day = r.day AND d.counted_until IS NOT NULL;
    DELETE FROM ledger_rollup_players r USING ledger_rollup_days d WHERE d.day = r.day AND d.counted_until IS NOT NULL;
    DELETE FROM ledger_rollup_days WHERE counted_until IS NOT NULL;

    ${DAYS_USABLE_OF_014}

    ${LIVE_RANGES_OF_WHOLE_DAYS}

    ALTER TABLE ledger_rollup_days DROP COLUMN IF EXISTS counted_until;
  `);
}
