/**
 * The ledger's code: its schema and the migrations that apply it (with the non-ledger tables'
 * DDL from @relay/shared), the exact counts, and the keyset pager that reporting and the back
 * office page it with. The jobs (partitions, retention, archive, restore, verify) are
 * `@relay/ledger/jobs`, which only the admin process and the CLI load: they bring the S3 client.
 */
export * from './counts';
export * from './pager';
export * from './migrate';
export { armCounts, awaitCounts } from './first-copy';
export { migrationSource, reportingMigrationSource, SQUASHED_CHAIN_ENDS, type RelayMigrationSource } from './migrations';
export { CREATE_PARTITION_SQL, MONEY_LEDGER_INDEXES, PARTITIONS_AHEAD } from './schema/ledger';
export { LATE_COMPLETION, lateKeysQuery } from './schema/reporting-indexes';
export { COUNT_TRIGGERS, countTriggersSql } from './schema/counts';
