import type { Knex } from 'knex';

/**
 * The registry of archived ledger months (docs/ledger.md, "Retention and archives"). One row per
 * month the retention job has started on; its state machine makes the job safe to interrupt:
 *   exporting -> exported (files + manifest written and verified) -> archived (keys copied and the
 *   month's partitions dropped, in one transaction).
 * A rerun redoes a month that is not `archived` from the start. `manifest` is the manifest file's
 * exact text (json keeps it verbatim), so its sha256 can be recomputed from the registry alone;
 * the latest archived month's manifest_sha256 anchors the hash chain of the archive.
 * `digests`: per table, a count and a hash over the rows as exported, compared again under the
 * lock just before the drop (a row changed after the export means the month is exported again).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE ledger_archives (
      month           date PRIMARY KEY CHECK (month = date_trunc('month', month)::date),
      state           text NOT NULL CHECK (state IN ('exporting', 'exported', 'archived')),
      manifest_sha256 text,
      manifest        json,
      digests         jsonb,
      started_at      timestamptz NOT NULL DEFAULT now(),
      exported_at     timestamptz,
      archived_at     timestamptz,
      updated_at      timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS ledger_archives');
}
