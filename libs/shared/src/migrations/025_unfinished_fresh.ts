import type { Knex } from 'knex';

/**
 * Which listed rows a total must look up to learn their status now (docs/ledger.md, "Exact totals").
 *
 * The unfinished list holds the rows of a counted day that were PENDING or OPEN when the job counted
 * them. A total used to read each listed row's live status (or hash every unfinished key of the
 * range) to tell the ones still unfinished from the ones finished since: work that grows with the
 * ledger's stuck rows (at 30M, the benchmark's 75,000 open rounds of the largest studio), whatever
 * the filter.
 *
 * A listed row is FRESH when it was created shortly before the job last saw it unfinished: within
 * LATE_COMPLETION (5 minutes) plus the close margin before the start of the oldest transaction then
 * running (services/admin/src/ledger/settled.ts, listingHorizon). A row that is not fresh and
 * finishes afterwards finishes late: the transaction that finishes it commits after the job's
 * snapshot, so it started after that horizon, and its key (completed_at, settled_at: now(), its
 * start) is more than LATE_COMPLETION after the row's created_at. 021's partial indexes of late rows
 * then hold it. So the listed rows finished since are among the fresh ones and the late ones: few by
 * nature, whatever the number of stuck rows. A total takes the list's counts (024) as unfinished and
 * corrects them by those rows alone.
 *
 * Rows listed before this migration are fresh (nothing is known of when they were listed); the job
 * marks a fresh row not fresh once it sees it still unfinished past the horizon. The index holds the
 * fresh rows alone, with what a total reads of them.
 */

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_rollup_unfinished ADD COLUMN fresh boolean NOT NULL DEFAULT true;
    CREATE INDEX ledger_rollup_unfinished_fresh ON ledger_rollup_unfinished (parent, day)
      INCLUDE (group_id, provider_id, game_id, currency, category, created_at, id) WHERE fresh;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS ledger_rollup_unfinished_fresh;
    ALTER TABLE ledger_rollup_unfinished DROP COLUMN IF EXISTS fresh;
  `);
}
