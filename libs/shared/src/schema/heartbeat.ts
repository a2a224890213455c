/**
 * The replication heartbeat, on both databases: the money database's row is written every
 * REPLICATION_HEARTBEAT_MS and published; the reporting database's copy says how fresh it is
 * (libs/shared replication.ts, docs/reporting-database.md).
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

/** The money database's one heartbeat row (the reporting database receives it by replication). */
export const HEARTBEAT_ROW_SQL = `INSERT INTO replication_heartbeat (id, beat, beat_at, horizon_at) VALUES (1, 0, now(), '-infinity')`;
