import type { Knex } from 'knex';
import * as moneyBaseline from './001_money_baseline';
import * as moneyFreeRounds from './002_money_free_rounds';
import * as moneyFreeRoundsMode from './003_money_free_rounds_mode';
import * as moneyFreeRoundPlays from './004_money_free_round_plays';
import * as reportingBaseline from './001_reporting_baseline';
import * as reportingCounts from './002_reporting_counts';
import * as reportingFirstCopy from './003_reporting_first_copy';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
  /** { transaction: false }: the migration manages its own transactions (CREATE INDEX CONCURRENTLY). */
  config?: { transaction?: boolean };
}

/**
 * A database's migrations, and what adoptBaseline (migrate.ts) needs to move a database built by the
 * migrations before the squash onto them: the baseline's name, and the last step of the old chain.
 */
export interface RelayMigrationSource extends Knex.MigrationSource<string> {
  baseline: string;
}

/**
 * Migrations are compiled with the code and listed here, so no file loader guesses extensions.
 * Each database starts from one baseline (the schema the migrations 001-034 produced, squashed in
 * issue 34; ../schema here and libs/shared/src/schema hold its parts); later migrations are added to both lists or to
 * one, with numbers from 002 on.
 */
const source = (migrations: Record<string, Migration>, baseline: string): RelayMigrationSource => ({
  baseline,
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name] as Migration,
});

/**
 * The last migration of the chain the baselines replace, as a database built by it records it: the
 * previous release's (033, one per database), or 034 (databases of this release's development).
 */
export const SQUASHED_CHAIN_ENDS: readonly string[] = ['033_money_lean', '033_reporting_replica', '034_ledger_counts'];

/** The money database's migrations (DATABASE_URL). */
export const migrationSource = source(
  {
    '001_money_baseline': moneyBaseline,
    '002_money_free_rounds': moneyFreeRounds,
    '003_money_free_rounds_mode': moneyFreeRoundsMode,
    '004_money_free_round_plays': moneyFreeRoundPlays,
  },
  '001_money_baseline',
);

/** The reporting database's migrations (REPORTING_DATABASE_URL). */
export const reportingMigrationSource = source(
  { '001_reporting_baseline': reportingBaseline, '002_reporting_counts': reportingCounts, '003_reporting_first_copy': reportingFirstCopy },
  '001_reporting_baseline',
);
