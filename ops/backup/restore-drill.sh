#!/usr/bin/env bash
# Restore drill: proves a backup of the relay database can be restored and holds the same money.
#
#   ops/backup/restore-drill.sh                      # dump DATABASE_URL now, restore, compare
#   ops/backup/restore-drill.sh --dump FILE          # restore FILE (pg_dump -Fc), compare with DATABASE_URL
#   ops/backup/restore-drill.sh --restored-url URL   # compare an already restored database (e.g. a
#                                                    # point-in-time recovery) with DATABASE_URL
#
# It restores into a scratch database on the same server (RESTORE_ADMIN_URL, default: DATABASE_URL
# with the database "postgres"), compares every table's row count and the money checksums
# (transactions by status, category and currency; rounds by status), prints how long the restore
# took, and drops the scratch database (KEEP_RESTORED=1 keeps it). Exit 0 only when everything matches.
# Compare against a source that is not being written (a replica paused, or a maintenance window),
# or take the dump and compare at once, as the first form does.
# Never prints a connection string (they may hold passwords).
set -euo pipefail

SOURCE_URL="${DATABASE_URL:?DATABASE_URL (the database to check against) is required}"
DUMP=""
RESTORED_URL=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dump) DUMP="$2"; shift 2 ;;
    --restored-url) RESTORED_URL="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

# postgres://user@host:port/db?params -> the same URL on another database.
with_db() { local url="$1" db="$2"; local query=""; [[ "$url" == *\?* ]] && query="?${url#*\?}"; url="${url%%\?*}"; echo "${url%/*}/${db}${query}"; }

started=$(date +%s.%N)
scratch=""
cleanup() {
  if [ -n "$scratch" ] && [ "${KEEP_RESTORED:-0}" != "1" ]; then
    psql -X -q "$ADMIN_URL" -c "DROP DATABASE IF EXISTS \"$scratch\" WITH (FORCE)" >/dev/null || true
  fi
  if [ -n "${tmpdump:-}" ]; then rm -f "$tmpdump"; fi
}
trap cleanup EXIT

if [ -z "$RESTORED_URL" ]; then
  ADMIN_URL="${RESTORE_ADMIN_URL:-$(with_db "$SOURCE_URL" postgres)}"
  scratch="relay_restore_drill_$(date +%Y%m%d%H%M%S)_$$"
  if [ -z "$DUMP" ]; then
    tmpdump="$(mktemp --suffix=.dump)"
    DUMP="$tmpdump"
    echo "== dumping the source database"
    pg_dump --format=custom --no-owner --file="$DUMP" "$SOURCE_URL"
  fi
  echo "== restoring into scratch database $scratch"
  psql -X -q "$ADMIN_URL" -c "CREATE DATABASE \"$scratch\"" >/dev/null
  RESTORED_URL="$(with_db "$ADMIN_URL" "$scratch")"
  pg_restore --no-owner --exit-on-error --dbname="$RESTORED_URL" "$DUMP"
fi
restored=$(date +%s.%N)

# One text line per figure, sorted, so two databases compare with diff.
figures() {
  psql -X -q -At "$1" <<'SQL'
SELECT 'rows ' || table_name || ' ' || (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I.%I', table_schema, table_name), false, true, '')))[1]::text
  FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE';
SELECT 'transactions ' || status || ' ' || category || ' ' || currency || ' ' || count(*) || ' ' || coalesce(sum(amount), 0)
  FROM transactions GROUP BY status, category, currency;
SELECT 'rounds ' || status || ' ' || count(*) FROM rounds GROUP BY status;
SELECT 'migrations ' || count(*) || ' ' || coalesce(max(name), '') FROM knex_migrations;
SQL
}

echo "== comparing"
source_figures="$(figures "$SOURCE_URL" | sort)"
restored_figures="$(figures "$RESTORED_URL" | sort)"
checked=$(printf '%s\n' "$source_figures" | grep -c .)
if [ "$source_figures" != "$restored_figures" ]; then
  echo "RESTORE DRILL FAILED: the restored database differs from the source" >&2
  diff <(printf '%s\n' "$source_figures") <(printf '%s\n' "$restored_figures") >&2 || true
  exit 1
fi
finished=$(date +%s.%N)
printf 'RESTORE DRILL OK: %d figures match; restore took %.1f s, comparison %.1f s\n' \
  "$checked" "$(echo "$restored - $started" | bc)" "$(echo "$finished - $restored" | bc)"
