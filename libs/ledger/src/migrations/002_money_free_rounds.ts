import type { Knex } from 'knex';

/**
 * Free-round awards (issue 35): a casino's grant of a number of rounds at a fixed bet value, for one
 * player, currency and set of games, between a start and an expiry. The casino's own `award_id` is
 * its idempotency key, so it is unique per casino. Every key leads with the casino: the back office's
 * lists walk (provider_id, created_at DESC, id), a player's awards and the game route's "active
 * awards of this session's player" walk (provider_id, player_id, ...). Nothing else is indexed: the
 * money database stays lean.
 *
 * `group_ids` holds the game providers of `game_ids` when the award was created, as a ledger row
 * holds its `group_id`: what a studio-scoped back-office reader is filtered by. Not published to the
 * reporting database (no report reads awards yet), and no foreign key to `casinos`: a removed
 * casino's awards stay, like its ledger.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE free_round_awards (
      provider_id    text NOT NULL,
      id             uuid NOT NULL,
      award_id       text NOT NULL,
      campaign_id    text,
      player_id      text NOT NULL,
      currency       text NOT NULL,
      game_ids       integer[] NOT NULL CHECK (cardinality(game_ids) > 0),
      group_ids      text[] NOT NULL,
      rounds         integer NOT NULL CHECK (rounds > 0),
      rounds_played  integer NOT NULL DEFAULT 0 CHECK (rounds_played >= 0 AND rounds_played <= rounds),
      bet_value      numeric(20,2) NOT NULL CHECK (bet_value > 0),
      total_won      numeric(20,2) NOT NULL DEFAULT 0 CHECK (total_won >= 0),
      starts_at      timestamptz NOT NULL,
      expires_at     timestamptz NOT NULL,
      state          text NOT NULL DEFAULT 'ACTIVE' CHECK (state IN ('ACTIVE', 'IN_PROGRESS', 'COMPLETED', 'EXPIRED', 'CANCELLED')),
      created_at     timestamptz NOT NULL DEFAULT now(),
      updated_at     timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (provider_id, id),
      UNIQUE (provider_id, award_id),
      CHECK (expires_at > starts_at)
    );
    CREATE INDEX free_round_awards_created ON free_round_awards (provider_id, created_at DESC, id);
    CREATE INDEX free_round_awards_player ON free_round_awards (provider_id, player_id, created_at DESC, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS free_round_awards');
}
