import type { Knex } from 'knex';
import { coarseRollupTable, dropCoarseRollupTable, type ByStatus } from './029_rollups_by_status';

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
export const PLAYER_COUNTS: Record<'byCasino' | 'allGames', Counts> = {
  byCasino: {
    bits: 'ledger_rollup_player_bits_by_casino', source: 'ledger_rollup_player_bits_by_casino', table: 'ledger_rollup_player_counts_by_casino',
    key: 'provider_id, day, currency', sums: ['n'], columns: 'provider_id text NOT NULL, day date NOT NULL, currency text NOT NULL, n bigint NOT NULL',
  },
  allGames: {
    bits: 'ledger_rollup_player_bits_all_games', source: 'ledger_rollup_player_bits_all_games', table: 'ledger_rollup_player_counts_all_games',
    key: 'group_id, provider_id, day, currency', sums: ['n'], columns: 'group_id text NOT NULL, provider_id text NOT NULL, day date NOT NULL, currency text NOT NULL, n bigint NOT NULL',
  },
};
const TABLES = Object.values(PLAYER_COUNTS);

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
