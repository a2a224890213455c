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
    -- Unused since the daily rollups (which read it as their clock) were retired; kept, as adopted
    -- databases have it, until a release drops it from both databases and the publication.
    horizon_at timestamptz NOT NULL
  );
`;

/** The money database's one heartbeat row (the reporting database receives it by replication); none twice. */
export const HEARTBEAT_ROW_SQL = `INSERT INTO replication_heartbeat (id, beat, beat_at, horizon_at) VALUES (1, 0, now(), '-infinity') ON CONFLICT (id) DO NOTHING`;
