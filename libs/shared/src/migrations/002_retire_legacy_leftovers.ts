import type { Knex } from 'knex';
import { CREATE_PARTITION_SQL } from '../schema/ledger';

/**
 * What the migrations before the baseline kept for moving a ledger of the layout before partitions
 * (one heap per table; docs/ledger.md, "Migrating an existing database"). Those ways were retired
 * and no such database exists. The baselines do not create any of it; a database built by the old
 * migrations (adopted, see adoptBaseline in db.ts) loses it here, so both end the same. On a database
 * the baseline built, every statement finds nothing to do.
 *
 * - ledger_partition_covers: whether the old table's [MINVALUE, bound) partition covered a range;
 *   ledger_create_partition no longer asks it (on the partitioned layout it was true only for a month
 *   that has its partition, which the function checks by name).
 * - ledger_archives' `removing` state and `progress` column: the chunked removal of a month of the
 *   old table's partition. No month is `removing` (the constraint below refuses to be added while one is).
 * - ledger_live_migration: the live migration's state (created only by the retired migrate-live).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(CREATE_PARTITION_SQL);
  await knex.raw(`
    DROP FUNCTION IF EXISTS ledger_partition_covers(text, timestamptz, timestamptz);
    ALTER TABLE ledger_archives DROP COLUMN IF EXISTS progress;
    ALTER TABLE ledger_archives DROP CONSTRAINT IF EXISTS ledger_archives_state_check;
    ALTER TABLE ledger_archives ADD CONSTRAINT ledger_archives_state_check CHECK (state IN ('exporting', 'exported', 'archived'));
    DROP TABLE IF EXISTS ledger_live_migration;
  `);
}

/** Irreversible: nothing reads what it dropped. */
export async function down(): Promise<void> {}
