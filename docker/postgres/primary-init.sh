#!/bin/bash
# Runs once, when the primary's data directory is first initialised (docker-entrypoint-initdb.d):
# a replication role and a physical slot for the read replica, and the pg_hba line that lets the
# role stream. The slot keeps WAL until the replica has it, so a replica that was down catches up.
set -euo pipefail

psql -v ON_ERROR_STOP=1 -v password="$REPLICATION_PASSWORD" --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'EOSQL'
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD :'password';
SELECT pg_create_physical_replication_slot('replica1');
EOSQL

echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
