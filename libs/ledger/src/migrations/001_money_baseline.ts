import type { Knex } from 'knex';
import { ACCOUNTS_SQL, catalogSql, HEARTBEAT_ROW_SQL, HEARTBEAT_TABLE_SQL, publicationSql, sessionsSql } from '@relay/shared';
import { KEY_TABLES_SQL } from '../schema/keys';
import { ENSURE_PARTITIONS_SQL, LEDGER_TABLES_SQL, MONEY_INDEXES_SQL, PARTITION_FUNCTIONS_SQL } from '../schema/ledger';

/**
 * The money database as the migrations 001-034 left it (squashed, issue 34), minus the leftovers of
 * the retired ways of migrating a ledger of the layout before partitions and the retired rollups (a
 * database built by those migrations keeps them until a later release drops them: docs/ledger.md,
 * "Migrating an existing database").
 *
 * The money database holds what a money call needs and every write (docs/reporting-database.md):
 * configuration and catalog, sessions, the ledger with only the indexes the money path and its jobs
 * use, the idempotency keys, back-office accounts and the audit trail, and the replication heartbeat
 * and the publication the reporting database subscribes to.
 */
export async function up(knex: Knex): Promise<void> {
  // Configuration and catalog (with the secret columns), sessions.
  await knex.raw(catalogSql({ secrets: true }));
  await knex.raw(sessionsSql({ secrets: true }));
  // The ledger: partitioned tables, their default partitions, the partition functions, the keys.
  await knex.raw(LEDGER_TABLES_SQL);
  await knex.raw(PARTITION_FUNCTIONS_SQL);
  await knex.raw(KEY_TABLES_SQL);
  await knex.raw(MONEY_INDEXES_SQL);
  // Back-office accounts, the audit trail, the money views' decisions.
  await knex.raw(ACCOUNTS_SQL);
  // Replication: the heartbeat's row and the publication of the tables in PUBLISHED.
  await knex.raw(HEARTBEAT_TABLE_SQL);
  await knex.raw(HEARTBEAT_ROW_SQL);
  await knex.raw(publicationSql());
  // The current month and the months ahead (each partition inherits the parents' indexes).
  await knex.raw(ENSURE_PARTITIONS_SQL);
}

/** Irreversible: a baseline is not taken down. */
export async function down(): Promise<void> {
  throw new Error('001_money_baseline cannot be reverted: drop the database instead');
}
