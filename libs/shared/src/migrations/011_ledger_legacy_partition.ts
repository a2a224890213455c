import type { Knex } from 'knex';

/**
 * After a live migration (docs/ledger.md, "A live system") the old table is the first partition
 * of each money table, [MINVALUE, bound): the months before the bound have no partition of their
 * own. ledger_partition_covers says whether any partition of a table already covers a range, so
 * - ledger_create_partition skips a month the old table covers (creating it would overlap);
 * - the daily rollups count the days of the old table as days whose rows are still there;
 * - partition health counts them as months that have their partition.
 * On a ledger migrated offline (or installed fresh) nothing changes: every month has its own.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- True when a partition of parent (not the default) covers all of [lo, hi).
    CREATE OR REPLACE FUNCTION ledger_partition_covers(parent text, lo timestamptz, hi timestamptz) RETURNS boolean LANGUAGE sql STABLE AS $$
      SELECT EXISTS (
        SELECT 1 FROM (
          SELECT regexp_match(pg_get_expr(c.relpartbound, c.oid), '^FOR VALUES FROM \\((.*)\\) TO \\((.*)\\)$') AS b
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = to_regclass(parent)
        ) x
        WHERE b IS NOT NULL
          AND (b[1] = 'MINVALUE' OR trim(both '''' from b[1])::timestamptz <= lo)
          AND (b[2] = 'MAXVALUE' OR trim(both '''' from b[2])::timestamptz >= hi))
    $$;

    CREATE OR REPLACE FUNCTION ledger_create_partition(parent text, month date) RETURNS boolean LANGUAGE plpgsql AS $$
    DECLARE
      m date := date_trunc('month', month)::date;
      part text := ledger_partition_name(parent, m);
      key text := ledger_partition_key(parent);
      lo timestamptz := (m::timestamp AT TIME ZONE 'UTC');
      hi timestamptz := ((m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
    BEGIN
      IF to_regclass(part) IS NOT NULL OR ledger_partition_covers(parent, lo, hi) THEN RETURN false; END IF;
      -- Serialises concurrent creators of the same table (the job on two replicas, a migration).
      PERFORM pg_advisory_xact_lock(hashtext('ledger_partitions:' || parent));
      IF to_regclass(part) IS NOT NULL OR ledger_partition_covers(parent, lo, hi) THEN RETURN false; END IF;
      EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', part, parent);
      IF to_regclass(parent || '_pdefault') IS NOT NULL THEN
        EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved',
                       parent || '_pdefault', key, key, part) USING lo, hi;
      END IF;
      EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (%I >= %L AND %I < %L)', part, part || '_range', key, lo, key, hi);
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
      EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', part, part || '_range');
      RETURN true;
    END $$;

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
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION IF EXISTS ledger_partition_covers(text, timestamptz, timestamptz)`);
}
