#!/bin/bash
# The read replica: on first start, clone the primary with pg_basebackup (-R writes standby.signal
# and primary_conninfo), then run the stock entrypoint, which finds the data directory and starts
# PostgreSQL as a hot standby streaming from the primary's slot.
set -euo pipefail

PGDATA="${PGDATA:-/var/lib/postgresql/data}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until pg_isready -h "$PRIMARY_HOST" -p 5432 -q; do
    echo "replica: waiting for $PRIMARY_HOST"
    sleep 1
  done
  mkdir -p "$PGDATA"
  chown postgres:postgres "$PGDATA"
  chmod 700 "$PGDATA"
  gosu postgres env PGPASSWORD="$REPLICATION_PASSWORD" pg_basebackup \
    -h "$PRIMARY_HOST" -p 5432 -U "$REPLICATION_USER" -D "$PGDATA" \
    -X stream -S "${REPLICATION_SLOT:-replica1}" -R
fi

exec docker-entrypoint.sh postgres -c hot_standby=on
