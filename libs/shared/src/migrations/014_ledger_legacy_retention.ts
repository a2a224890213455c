import type { Knex } from 'knex';

/**
 * Retention of the months a live migration left in the old table's partition (docs/ledger.md,
 * "Months in the legacy partition"). Such a month has no partition of its own to drop: its rows
 * are exported and removed chunk by chunk, each chunk's file written, verified and published in
 * the transaction that removes its rows.
 * - ledger_archives gains the state `removing` (chunks are leaving; the month is partly in the
 *   database, partly in committed chunk files) and `progress`: the chunk files committed so far and
 *   the counts and sums of the rows they hold, as SQL saw them when it removed them.
 * - The lists' totals must not take a day of such a month from the rollups once its rows start
 *   leaving: the legacy partition still covers it (011), so the "month has its partition" test
 *   also asks that the month is not being removed or archived. Such a day is counted live (exact).
 * - The rollup job no longer recounts a day of a month being removed or archived (it would count
 *   only the rows left), so a stale mark on such a day is not read either: the reports, which read
 *   an archived month from its rollups, keep the counts the day had before its rows left.
 */
/** ledger_rollup_days_usable as 014 made it (whole days only); 019's down restores it. */
export const DAYS_USABLE_OF_014 = `CREATE OR REPLACE FUNCTION ledger_rollup_days_usable(parent text, lo timestamptz, hi timestamptz, require_partition boolean)
      RETURNS TABLE (day date) LANGUAGE sql STABLE AS $$
      SELECT d.day FROM ledger_rollup_days d
       WHERE d.day >= coalesce(CASE WHEN (lo AT TIME ZONE 'UTC')::time = '00:00' THEN (lo AT TIME ZONE 'UTC')::date
                                    ELSE (lo AT TIME ZONE 'UTC')::date + 1 END, '-infinity'::date)
         AND d.day < coalesce((hi AT TIME ZONE 'UTC')::date, 'infinity'::date)
         AND (parent <> 'transactions' OR NOT EXISTS (SELECT 1 FROM rollup_stale_days s WHERE s.day = d.day)
              OR EXISTS (SELECT 1 FROM ledger_archives a
                          WHERE a.month = date_trunc('month', d.day)::date AND a.state IN ('removing', 'archived')))
         AND (NOT require_partition
              OR ((EXISTS (SELECT 1 FROM ledger_partitions p
                            WHERE p.parent_table = parent AND p.month = date_trunc('month', d.day)::date)
                   OR ledger_partition_covers(parent, d.day::timestamp AT TIME ZONE 'UTC', (d.day + 1)::timestamp AT TIME ZONE 'UTC'))
                  AND NOT EXISTS (SELECT 1 FROM ledger_archives a
                                   WHERE a.month = date_trunc('month', d.day)::date AND a.state IN ('removing', 'archived'))))
    $$;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_archives ADD COLUMN IF NOT EXISTS progress jsonb;
    ALTER TABLE ledger_archives DROP CONSTRAINT IF EXISTS ledger_archives_state_check;
    ALTER TABLE ledger_archives ADD CONSTRAINT ledger_archives_state_check CHECK (state IN ('exporting', 'exported', 'removing', 'archived'));

    ${DAYS_USABLE_OF_014}
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION ledger_rollup_days_usable(parent text, lo timestamptz, hi timestamptz, require_partition boolean)
      RETURNS TABLE (day date) LANGUAGE sql STABLE AS $$
      SELECT d.day FROM ledger_rollup_days d
       WHERE d.day >= coalesce(CASE WHEN (lo AT TIME ZONE 'UTC')::time = '00:00' THEN (lo AT TIME ZONE 'UTC')::date
                                    ELSE (lo AT TIME ZONE 'UTC')::date + 1 END, '-infinity'::date)
         AND d.day < coalesce((hi AT TIME ZONE 'UTC')::date, 'infinity'::date)
         AND (parent <> 'transactions' OR NOT EXISTS (SELECT 1 FROM rollup_stale_days s WHERE s.day = d.day))
         AND (NOT require_partition
              OR EXISTS (SELECT 1 FROM ledger_partitions p
                          WHERE p.parent_table = parent AND p.month = date_trunc('month', d.day)::date)
              OR ledger_partition_covers(parent, d.day::timestamp AT TIME ZONE 'UTC', (d.day + 1)::timestamp AT TIME ZONE 'UTC'))
    $$;
    ALTER TABLE ledger_archives DROP CONSTRAINT IF EXISTS ledger_archives_state_check;
    ALTER TABLE ledger_archives ADD CONSTRAINT ledger_archives_state_check CHECK (state IN ('exporting', 'exported', 'archived'));
    ALTER TABLE ledger_archives DROP COLUMN IF EXISTS progress;
  `);
}
