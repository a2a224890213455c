/**
 * The player bitmap tables (docs/ledger.md, "Distinct players"), one per key: per day, key and block
 * of a casino's player dictionary, the players with a successful bet. Each with the tables kept from
 * it, if it has them: its spans of days (migration 031) and its players counted per day and key (032).
 *
 * Migrations 031 and 032 create their tables from these descriptors: a change here changes what they
 * create. A new table, or a new column of one, is a new migration.
 */
export interface PlayerBitmapTable {
  /** The bitmaps: (day, ...key, block, bits), the primary key in that order. */
  table: string;
  /** Its key besides the day and the block, in the order of its primary key. */
  key: readonly string[];
  /** Its bitmaps of spans of days (031): (first_day, days, ...key, block, bits). */
  spans?: string;
  /** Its players per day and key (032): the bit_count of the day's blocks of the key, summed. */
  counts?: string;
}

export const PLAYER_BITMAPS = {
  /** By game (020): what a total that groups or filters by game reads. */
  byGame: { table: 'ledger_rollup_player_bits', key: ['group_id', 'provider_id', 'game_id', 'currency'] },
  /** Without the game (020). */
  allGames: {
    table: 'ledger_rollup_player_bits_all_games', key: ['group_id', 'provider_id', 'currency'],
    spans: 'ledger_rollup_player_bits_all_games_spans', counts: 'ledger_rollup_player_counts_all_games',
  },
  /** Without the studio either (022): what a casino's or the platform's finance report reads. */
  byCasino: {
    table: 'ledger_rollup_player_bits_by_casino', key: ['provider_id', 'currency'],
    spans: 'ledger_rollup_player_bits_by_casino_spans', counts: 'ledger_rollup_player_counts_by_casino',
  },
} as const satisfies Record<string, PlayerBitmapTable>;

const COLUMN_TYPE: Record<string, string> = { group_id: 'text', provider_id: 'text', game_id: 'integer', currency: 'text', day: 'date', block: 'integer' };

/** The definitions of `columns` for a CREATE TABLE, all NOT NULL: `group_id text NOT NULL, ...`. */
export const columnDefinitions = (columns: readonly string[]) => columns.map((c) => `${c} ${COLUMN_TYPE[c]} NOT NULL`).join(', ');
