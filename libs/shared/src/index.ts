export * from './config';
export * from './errors';
export * from './money';
export * from './context';
export * from './logger';
export * from './tracing';
export * from './telemetry';
export { installInstrumentation, instrumentationInstalled } from './telemetry-instrumentation';
export * from './crypto';
export * from './db';
export * from './replication';
export * from './redis';
export * from './identity';
export * from './cache';
export * from './http';
export * from './metrics';
export * from './health';
export * from './lifecycle';
export * from './runtime';
export { migrationSource, reportingMigrationSource } from './migrations';
export {
  LIVE as LEDGER_LIVE_MIGRATION,
  KEY_TABLES as LEDGER_KEY_TABLES,
  MONEY_INDEXES as LEDGER_MONEY_INDEXES,
  liveMigrationStep,
} from './migrations/007_ledger_partitions';
export { LATE_COMPLETION } from './migrations/021_late_completion_indexes';
export { lateKeysQuery } from './migrations/027_late_keys_function';
export * from './sessions';
export * from './registry';
export * from './casino';
export * from './pool-share';
export * from './reseal';
export * from './operator-sessions';
export * from './audit';
export { onConnectionClose } from './connection';
export * from './ledger-totals';
