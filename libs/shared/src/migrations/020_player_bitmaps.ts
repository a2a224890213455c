import type { Knex } from 'knex';

/**
 * Distinct players of a report as bitmaps (docs/ledger.md, "Distinct players"): a period's players
 * are the union of its days' players, and a union of bitmaps is a bitwise OR, where a union of
 * player lists (ledger_rollup_players, one row per day, combination and player) is a sort of
 * every row. Core PostgreSQL only: bit(n), bit_or, bit_count (14+), set_bit.
 *
 * - ledger_player_ids: the player dictionary, a dense number n = 0, 1, 2... per casino (a player
 *   id is the casino's own: the same id at two casinos is two players). Only the rollup job writes
 *   it, under its advisory lock; the money path never touches it.
 * - ledger_rollup_player_bits: per counted day, (studio, casino, game, currency) and block b of the
 *   casino's dictionary, the players n in [b * 4096, (b + 1) * 4096) with a successful bet, as bit
 *   n - b * 4096 of a bit(4096). A block with no such player has no row.
 * - ledger_rollup_player_bits_all_games: the same without the game (the OR of a day's games), for the
 *   reports that neither group nor filter by game: a quarter of the rows on the benchmark data.
 * - ledger_rollup_player_bits_days: the counted days whose bitmaps are built (by the day's count, in
 *   its transaction, or by the job's backfill from ledger_rollup_players for days counted before
 *   this migration). A counted day not listed is read from ledger_rollup_players.
 *
 * 4096 bits are 512 bytes: a row stays far below the size at which PostgreSQL compresses or moves
 * a value out of line (about 2 kB), so reading one is a plain heap read, and the key is about a
 * seventh of the row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE ledger_player_ids (
      provider_id text NOT NULL,
      player_id   text NOT NULL,
      n           integer NOT NULL CHECK (n >= 0),
      PRIMARY KEY (provider_id, player_id),
      UNIQUE (provider_id, n)
    );

    CREATE TABLE ledger_rollup_player_bits (
      day         date NOT NULL,
      group_id    text NOT NULL,
      provider_id text NOT NULL,
      game_id     integer NOT NULL,
      currency    text NOT NULL,
      block       integer NOT NULL,
      bits        bit(4096) NOT NULL,
      PRIMARY KEY (day, group_id, provider_id, game_id, currency, block)
    );
    CREATE INDEX ledger_rollup_player_bits_provider ON ledger_rollup_player_bits (provider_id, day);

    CREATE TABLE ledger_rollup_player_bits_all_games (
      day         date NOT NULL,
      group_id    text NOT NULL,
      provider_id text NOT NULL,
      currency    text NOT NULL,
      block       integer NOT NULL,
      bits        bit(4096) NOT NULL,
      PRIMARY KEY (day, group_id, provider_id, currency, block)
    );
    CREATE INDEX ledger_rollup_player_bits_all_games_provider ON ledger_rollup_player_bits_all_games (provider_id, day);

    CREATE TABLE ledger_rollup_player_bits_days (
      day      date PRIMARY KEY,
      built_at timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS ledger_rollup_player_bits_days, ledger_rollup_player_bits_all_games, ledger_rollup_player_bits, ledger_player_ids;
  `);
}
