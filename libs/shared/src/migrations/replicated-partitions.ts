/**
 * What both databases' migrations 033 create alike. The heartbeat: the money database's row is
 * written every REPLICATION_HEARTBEAT_MS and replicated; the reporting database's copy says how
 * fresh it is (libs/shared replication.ts).
 */
export const HEARTBEAT_TABLE_SQL = `
  CREATE TABLE replication_heartbeat (
    id      integer PRIMARY KEY CHECK (id = 1),
    beat    bigint NOT NULL,
    beat_at timestamptz NOT NULL,
    -- Every transaction of the money database that started before this had ended when the beat was written.
    horizon_at timestamptz NOT NULL
  );
`;

/**
 * ledger_create_partition as both databases run it since 033. Rows written while their month had
 * no partition wait in the default partition; when the month is created they leave it through a
 * DELETE and come back through an INSERT into the parent once the month is attached. Both are
 * statements on the published parent, so the reporting database (publish_via_partition_root) sees
 * the move. The function before 033 filled the new table before attaching it: an insert into a
 * table that is not yet a partition is published nowhere, and the reporting database lost the rows.
 */
export const CREATE_PARTITION_SQL = `
  CREATE OR REPLACE FUNCTION ledger_create_partition(parent text, month date) RETURNS boolean LANGUAGE plpgsql AS $$
  DECLARE
    m date := date_trunc('month', month)::date;
    part text := ledger_partition_name(parent, m);
    key text := ledger_partition_key(parent);
    lo timestamptz := (m::timestamp AT TIME ZONE 'UTC');
    hi timestamptz := ((m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
    waiting boolean := false;
  BEGIN
    IF to_regclass(part) IS NOT NULL OR ledger_partition_covers(parent, lo, hi) THEN RETURN false; END IF;
    -- Serialises concurrent creators of the same table (the job on two replicas, a migration).
    PERFORM pg_advisory_xact_lock(hashtext('ledger_partitions:' || parent));
    IF to_regclass(part) IS NOT NULL OR ledger_partition_covers(parent, lo, hi) THEN RETURN false; END IF;
    IF to_regclass(parent || '_pdefault') IS NOT NULL THEN
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE %I >= $1 AND %I < $2)', parent || '_pdefault', key, key) INTO waiting USING lo, hi;
    END IF;
    IF waiting THEN
      -- ATTACH refuses while the default partition holds rows of the new range: they wait aside.
      EXECUTE format('CREATE TEMP TABLE ledger_moving_rows (LIKE %I)', parent);
      EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) INSERT INTO ledger_moving_rows SELECT * FROM moved',
                     parent || '_pdefault', key, key) USING lo, hi;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', part, parent);
    -- A valid CHECK matching the bound lets ATTACH skip scanning the new partition.
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (%I >= %L AND %I < %L)', part, part || '_range', key, lo, key, hi);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', part, part || '_range');
    IF waiting THEN
      EXECUTE format('INSERT INTO %I SELECT * FROM ledger_moving_rows', parent);
      DROP TABLE ledger_moving_rows;
    END IF;
    RETURN true;
  END $$;
`;
