import type { Knex } from 'knex';

/**
 * The whole data model. Money is NUMERIC(20,2); amounts the relay must store exactly as the casino
 * answered them are NUMERIC without scale. Reporting indexes all lead with group_id because every
 * read is scoped to the calling game provider.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE game_providers (
      group_id            text PRIMARY KEY,
      name                text NOT NULL,
      status              text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE','INACTIVE')),
      rate_limit_per_second integer CHECK (rate_limit_per_second >= 0),
      launch_public_key_pem text,
      created_at          timestamptz NOT NULL DEFAULT now(),
      updated_at          timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE provider_tokens (
      token_id    text PRIMARY KEY,
      group_id    text NOT NULL REFERENCES game_providers(group_id) ON DELETE CASCADE,
      token_hash  text NOT NULL UNIQUE,
      created_at  timestamptz NOT NULL DEFAULT now(),
      revoked_at  timestamptz
    );
    CREATE INDEX provider_tokens_group ON provider_tokens (group_id);

    CREATE TABLE games (
      game_id       integer PRIMARY KEY,
      group_id      text NOT NULL REFERENCES game_providers(group_id),
      name          text NOT NULL,
      frontend_url  text NOT NULL,
      status        text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE','INACTIVE')),
      created_at    timestamptz NOT NULL DEFAULT now(),
      updated_at    timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX games_group ON games (group_id);

    CREATE TABLE casinos (
      provider_id           text PRIMARY KEY,
      name                  text NOT NULL,
      wallet_url            text NOT NULL,
      wallet_secret_enc     text NOT NULL,
      launch_key_enc        text NOT NULL,
      status                text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE','INACTIVE')),
      refund_on_credit_fail boolean NOT NULL DEFAULT false,
      credit_on_disconnect  boolean NOT NULL DEFAULT false,
      created_at            timestamptz NOT NULL DEFAULT now(),
      updated_at            timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX casinos_created ON casinos (created_at DESC);

    -- Sessions live in Redis for the hot path; this table is the durable copy and the archive that
    -- the cash-in retry route reads after the live session expired.
    CREATE TABLE sessions (
      session_id        text PRIMARY KEY,
      group_id          text NOT NULL,
      game_id           integer NOT NULL,
      provider_id       text NOT NULL,
      player_id         text NOT NULL,
      currency          text NOT NULL,
      language          text NOT NULL,
      username          text,
      wallet_token_enc  text NOT NULL,
      created_at        timestamptz NOT NULL DEFAULT now(),
      expires_at        timestamptz NOT NULL,
      archive_until     timestamptz NOT NULL
    );
    CREATE INDEX sessions_archive_until ON sessions (archive_until);

    CREATE TABLE launch_token_uses (
      provider_id text NOT NULL,
      jti         text NOT NULL,
      expires_at  timestamptz NOT NULL,
      PRIMARY KEY (provider_id, jti)
    );
    CREATE INDEX launch_token_uses_expires ON launch_token_uses (expires_at);

    CREATE TABLE rounds (
      id                    uuid PRIMARY KEY,
      provider_id           text NOT NULL,
      round_id              text NOT NULL,
      group_id              text NOT NULL,
      game_id               integer NOT NULL,
      player_id             text NOT NULL,
      session_id            text NOT NULL,
      currency              text NOT NULL,
      language              text NOT NULL,
      status                text NOT NULL CHECK (status IN ('OPEN','SETTLED')),
      bet_amount            numeric(20,2) NOT NULL,
      bet_transaction_id    text NOT NULL,
      payout_amount         numeric(20,2),
      applied_multiplier    numeric,
      settle_transaction_id text,
      settle_reason         text,
      outcome               text,
      game_data             json,
      settlement_data       json,
      opened_at             timestamptz NOT NULL,
      settled_at            timestamptz,
      created_at            timestamptz NOT NULL DEFAULT now(),
      updated_at            timestamptz NOT NULL DEFAULT now(),
      UNIQUE (provider_id, round_id)
    );
    CREATE INDEX rounds_group_created ON rounds (group_id, created_at DESC, id);
    CREATE INDEX rounds_group_provider_created ON rounds (group_id, provider_id, created_at DESC);
    CREATE INDEX rounds_group_status_created ON rounds (group_id, status, created_at DESC);
    CREATE INDEX rounds_group_player_created ON rounds (group_id, player_id, created_at DESC);
    CREATE INDEX rounds_group_game_created ON rounds (group_id, game_id, created_at DESC);
    CREATE INDEX rounds_group_opened ON rounds (group_id, opened_at DESC);
    CREATE INDEX rounds_group_settled ON rounds (group_id, settled_at DESC);
    CREATE INDEX rounds_group_round ON rounds (group_id, round_id);

    CREATE TABLE transactions (
      id                      uuid PRIMARY KEY,
      provider_id             text NOT NULL,
      transaction_id          text NOT NULL,
      previous_transaction_id text,
      category                text NOT NULL CHECK (category IN ('CASH_OUT','CASH_IN')),
      status                  text NOT NULL CHECK (status IN ('PENDING','SUCCESS','FAILED')),
      group_id                text NOT NULL,
      game_id                 integer NOT NULL,
      player_id               text NOT NULL,
      session_id              text NOT NULL,
      round_id                text NOT NULL,
      amount                  numeric(20,2) NOT NULL,
      currency                text NOT NULL,
      language                text NOT NULL,
      reason                  text,
      applied_multiplier      numeric,
      bet_amount              numeric(20,2),
      award_id                text,
      campaign_id             text,
      is_last_freebet         boolean,
      is_retry                boolean NOT NULL DEFAULT false,
      balance                 numeric(20,2),
      username                text,
      error_code              text,
      error_message           text,
      request_fingerprint     text NOT NULL,
      attempt                 integer NOT NULL DEFAULT 1,
      claimed_at              timestamptz NOT NULL DEFAULT now(),
      completed_at            timestamptz,
      created_at              timestamptz NOT NULL DEFAULT now(),
      updated_at              timestamptz NOT NULL DEFAULT now(),
      UNIQUE (provider_id, transaction_id)
    );
    CREATE INDEX transactions_group_created ON transactions (group_id, created_at DESC, id);
    CREATE INDEX transactions_group_provider_created ON transactions (group_id, provider_id, created_at DESC);
    CREATE INDEX transactions_group_status_created ON transactions (group_id, status, category, created_at DESC);
    CREATE INDEX transactions_group_player_created ON transactions (group_id, player_id, created_at DESC);
    CREATE INDEX transactions_group_game_created ON transactions (group_id, game_id, created_at DESC);
    CREATE INDEX transactions_group_round ON transactions (group_id, round_id);
    CREATE INDEX transactions_group_txid ON transactions (group_id, transaction_id);
    CREATE INDEX transactions_group_completed ON transactions (group_id, completed_at DESC);
    CREATE INDEX transactions_provider_round ON transactions (provider_id, round_id);

    -- Every attempt of a money call, append-only: what was asked and what the casino answered,
    -- even when a later attempt with the same transactionId replaced the transaction's live state.
    -- No foreign key: rows are only ever written by the statement that claims the transaction
    -- itself, and the key's check cost a third of that statement's execution time.
    CREATE TABLE transaction_attempts (
      id              bigserial PRIMARY KEY,
      transaction_pk  uuid NOT NULL,
      attempt         integer NOT NULL,
      request         json NOT NULL,
      outcome         text CHECK (outcome IN ('SUCCESS','FAILED')),
      casino_status   integer,
      casino_body     text,
      error_code      text,
      error_message   text,
      started_at      timestamptz NOT NULL DEFAULT now(),
      finished_at     timestamptz,
      UNIQUE (transaction_pk, attempt)
    );

    CREATE TABLE game_config_templates (
      game_id     integer PRIMARY KEY REFERENCES games(game_id) ON DELETE CASCADE,
      properties  jsonb NOT NULL,
      version     integer NOT NULL DEFAULT 1,
      created_at  timestamptz NOT NULL DEFAULT now(),
      updated_at  timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE casino_game_configs (
      provider_id text NOT NULL REFERENCES casinos(provider_id) ON DELETE CASCADE,
      game_id     integer NOT NULL REFERENCES games(game_id) ON DELETE CASCADE,
      overrides   jsonb NOT NULL,
      created_at  timestamptz NOT NULL DEFAULT now(),
      updated_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (provider_id, game_id)
    );
    CREATE INDEX casino_game_configs_game ON casino_game_configs (game_id);

    CREATE TABLE currency_configs (
      id                    uuid PRIMARY KEY,
      provider_id           text NOT NULL REFERENCES casinos(provider_id) ON DELETE CASCADE,
      game_id               integer NOT NULL REFERENCES games(game_id) ON DELETE CASCADE,
      currency              text NOT NULL,
      min_bet               numeric(20,2) NOT NULL,
      max_bet               numeric(20,2) NOT NULL,
      default_bet           numeric(20,2) NOT NULL,
      bet_suggestions       jsonb NOT NULL DEFAULT '[]',
      max_win               numeric(20,2) NOT NULL,
      min_auto_cashout      numeric,
      max_auto_cashout      numeric,
      default_auto_cashout  numeric,
      is_roundable          boolean NOT NULL DEFAULT false,
      is_default            boolean NOT NULL DEFAULT false,
      created_at            timestamptz NOT NULL DEFAULT now(),
      updated_at            timestamptz NOT NULL DEFAULT now(),
      UNIQUE (provider_id, game_id, currency)
    );
    CREATE INDEX currency_configs_game ON currency_configs (game_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS currency_configs, casino_game_configs, game_config_templates, transaction_attempts,
      transactions, rounds, launch_token_uses, sessions, casinos, games, provider_tokens, game_providers;
  `);
}
