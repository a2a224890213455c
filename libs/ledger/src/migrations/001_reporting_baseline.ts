import type { Knex } from 'knex';
import { ACCOUNTS_SQL, catalogSql, HEARTBEAT_TABLE_SQL, sessionsSql } from '@relay/shared';
import { COUNTS_SQL } from '../schema/counts';
import { KEY_TABLES_SQL } from '../schema/keys';
import { ENSURE_PARTITIONS_SQL, LEDGER_TABLES_SQL, MONEY_INDEXES_SQL, PARTITION_FUNCTIONS_SQL } from '../schema/ledger';
import { LATE_KEYS_FUNCTION_SQL, REPORTING_INDEXES_SQL } from '../schema/reporting-indexes';

/**
 * The reporting database as the migrations 001-034 left it (squashed, issue 34), minus the leftovers
 * of the retired ways of migrating a ledger of the layout before partitions (a database built by those
 * migrations keeps them until a later release drops them: docs/ledger.md, "Migrating an existing database").
 *
 * The reporting database is a logical replica of the money database (docs/reporting-database.md): the
 * same tables without the columns that hold secrets (the publication never sends them), every
 * reporting and back-office index, and the counts behind exact totals with the triggers that keep
 * them (ENABLE ALWAYS: they fire for the subscription's apply worker; a first copy runs with them off,
 * and armCounts rebuilds the counts after it).
 */
export async function up(knex: Knex): Promise<void> {
  // Configuration and catalog, sessions: no secret columns.
  await knex.raw(catalogSql({ secrets: false }));
  await knex.raw(sessionsSql({ secrets: false }));
  // The ledger: partitioned tables, their default partitions, the partition functions, the keys.
  await knex.raw(LEDGER_TABLES_SQL);
  await knex.raw(PARTITION_FUNCTIONS_SQL);
  await knex.raw(KEY_TABLES_SQL);
  // The money database's ledger indexes, then reporting's own, and the late rows' function.
  await knex.raw(MONEY_INDEXES_SQL);
  await knex.raw(REPORTING_INDEXES_SQL);
  await knex.raw(LATE_KEYS_FUNCTION_SQL);
  // Back-office accounts, the audit trail, the money views' decisions (tables of the money database's
  // layout; the publication sends only the decisions).
  await knex.raw(ACCOUNTS_SQL);
  // The heartbeat's copy (its row arrives by replication).
  await knex.raw(HEARTBEAT_TABLE_SQL);
  // The counts, their triggers (ENABLE ALWAYS) and ledger_retained.
  await knex.raw(COUNTS_SQL);
  // The current month and the months ahead (each partition inherits the parents' indexes and triggers).
  await knex.raw(ENSURE_PARTITIONS_SQL);
}

/** Irreversible: a baseline is not taken down. */
export async function down(): Promise<void> {
  throw new Error('001_reporting_baseline cannot be reverted: drop the database instead');
}
