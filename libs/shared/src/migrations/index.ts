import type { Knex } from 'knex';
import * as initial from './001_initial';
import * as leanMoneyWrites from './002_lean_money_writes';
import * as earlySettlement from './003_early_settlement';
import * as backofficeAccounts from './004_backoffice_accounts';
import * as backofficeMoneyViews from './005_backoffice_money_views';
import * as roundEndedNotifications from './006_round_ended_notifications';
import * as ledgerPartitions from './007_ledger_partitions';
import * as ledgerArchives from './008_ledger_archives';
import * as ledgerRollups from './009_ledger_rollups';
import * as attemptsStartedBrin from './010_attempts_started_brin';
import * as ledgerLegacyPartition from './011_ledger_legacy_partition';
import * as reportingSortIndexes from './012_reporting_sort_indexes';
import * as rollupUnfinishedScope from './013_rollup_unfinished_scope';
import * as ledgerLegacyRetention from './014_ledger_legacy_retention';
import * as statusCreatedIndex from './015_status_created_index';
import * as casinoTimeIndexes from './016_casino_time_indexes';
import * as failedOpenIndexes from './017_failed_open_indexes';
import * as ledgerRemovedRollups from './018_ledger_removed_rollups';
import * as rollupPartialDay from './019_rollup_partial_day';
import * as playerBitmaps from './020_player_bitmaps';
import * as lateCompletionIndexes from './021_late_completion_indexes';
import * as playerBitsByCasino from './022_player_bits_by_casino';
import * as unfinishedListCovering from './023_unfinished_list_covering';
import * as unfinishedCounts from './024_unfinished_counts';
import * as unfinishedFresh from './025_unfinished_fresh';
import * as unfinishedCasinoCounts from './026_unfinished_casino_counts';
import * as lateKeysFunction from './027_late_keys_function';
import * as unfinishedCurrencyCounts from './028_unfinished_currency_counts';
import * as rollupsByStatus from './029_rollups_by_status';
import * as reportRollups from './030_report_rollups';
import * as playerBitSpans from './031_player_bit_spans';
import * as playerCounts from './032_player_counts';
import * as moneyLean from './033_money_lean';
import * as reportingReplica from './033_reporting_replica';
import * as ledgerCounts from './034_ledger_counts';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
  /** { transaction: false }: the migration manages its own transactions (CREATE INDEX CONCURRENTLY). */
  config?: { transaction?: boolean };
}

/**
 * Migrations are compiled with the code and listed here, so no file loader guesses extensions.
 * 001-032 built one database that carried both the money path and reporting; from 033 each
 * database has its own list: the money database drops what only reporting reads, the reporting
 * database (a logical replica, docs/reporting-database.md) keeps it.
 */
const common: Record<string, Migration> = {
  '001_initial': initial,
  '002_lean_money_writes': leanMoneyWrites,
  '003_early_settlement': earlySettlement,
  '004_backoffice_accounts': backofficeAccounts,
  '005_backoffice_money_views': backofficeMoneyViews,
  '006_round_ended_notifications': roundEndedNotifications,
  '007_ledger_partitions': ledgerPartitions,
  '008_ledger_archives': ledgerArchives,
  '009_ledger_rollups': ledgerRollups,
  '010_attempts_started_brin': attemptsStartedBrin,
  '011_ledger_legacy_partition': ledgerLegacyPartition,
  '012_reporting_sort_indexes': reportingSortIndexes,
  '013_rollup_unfinished_scope': rollupUnfinishedScope,
  '014_ledger_legacy_retention': ledgerLegacyRetention,
  '015_status_created_index': statusCreatedIndex,
  '016_casino_time_indexes': casinoTimeIndexes,
  '017_failed_open_indexes': failedOpenIndexes,
  '018_ledger_removed_rollups': ledgerRemovedRollups,
  '019_rollup_partial_day': rollupPartialDay,
  '020_player_bitmaps': playerBitmaps,
  '021_late_completion_indexes': lateCompletionIndexes,
  '022_player_bits_by_casino': playerBitsByCasino,
  '023_unfinished_list_covering': unfinishedListCovering,
  '024_unfinished_counts': unfinishedCounts,
  '025_unfinished_fresh': unfinishedFresh,
  '026_unfinished_casino_counts': unfinishedCasinoCounts,
  '027_late_keys_function': lateKeysFunction,
  '028_unfinished_currency_counts': unfinishedCurrencyCounts,
  '029_rollups_by_status': rollupsByStatus,
  '030_report_rollups': reportRollups,
  '031_player_bit_spans': playerBitSpans,
  '032_player_counts': playerCounts,
};

const source = (migrations: Record<string, Migration>): Knex.MigrationSource<string> => ({
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name] as Migration,
});

/** The money database's migrations (DATABASE_URL). */
export const migrationSource = source({ ...common, '033_money_lean': moneyLean, '034_ledger_counts': ledgerCounts.money });

/** The reporting database's migrations (REPORTING_DATABASE_URL). */
export const reportingMigrationSource = source({ ...common, '033_reporting_replica': reportingReplica, '034_ledger_counts': ledgerCounts.reporting });
