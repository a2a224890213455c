import type { Knex } from 'knex';
import { coarseRollupTable, dropCoarseRollupTable, type ByStatus } from './029_rollups_by_status';
import { columnDefinitions, PLAYER_BITMAPS, type PlayerBitmapTable } from './player-bitmap-tables';

/**
 * The number of players of each day's bitmaps without the game (docs/ledger.md, "Distinct players"):
 * a report grouped by day and casino (or by day, studio and casino) counts each group's players as the
 * bit_count of its blocks, one bitmap of 512 bytes per block: at 30M a month by day and casino read
 * 23,400 of them (about 12 MB) to count 1,800 groups, and the planner, misled by the live parts'
 * estimates, sorted them on disk. Each bitmap row now carries its bit_count (a stored generated
 * column), and tables keep their sums per day and key, by the statement triggers of 029's builder, in
 * the writer's own transaction: such a report reads one narrow row per group.
 */
type Counts = ByStatus & { bits: string };
/** A table's counts: its key with the day after the casino, so it leads with a report's scope (studio, casino), as 030's sums do. */
function playerCounts({ table, key, counts }: Required<PlayerBitmapTable>): Counts {
  const casino = key.indexOf('provider_id') + 1;
  const countsKey = [...key.slice(0, casino), 'day', ...key.slice(casino)];
  return { bits: table, source: table, table: counts, key: countsKey.join(', '), sums: ['n'], columns: `${columnDefinitions(countsKey)}, n bigint NOT NULL` };
}
// Named one by one, not every table with counts: what this migration creates stays what it created.
const TABLES = [PLAYER_BITMAPS.byCasino, PLAYER_BITMAPS.allGames].map(playerCounts);

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ${TABLES.map((t) => `ALTER TABLE ${t.bits} ADD COLUMN n integer GENERATED ALWAYS AS (bit_count(bits)) STORED;`).join('\n')}
    ${TABLES.map(coarseRollupTable).join('\n')}
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ${TABLES.map(dropCoarseRollupTable).join('\n')}
    ${TABLES.map((t) => `ALTER TABLE ${t.bits} DROP COLUMN IF EXISTS n;`).join('\n')}
  `);
}
