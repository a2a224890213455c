/**
 * Configuration and catalog: studios (game providers) and their API tokens, games, casinos, and the
 * per-casino game configuration and bet limits. Both databases hold them; the reporting database
 * joins the ledger to them. Columns that hold a secret exist on the money database only (the
 * publication never sends them, docs/reporting-database.md): `secrets: false` leaves them out.
 */
export function catalogSql({ secrets }: { secrets: boolean }): string {
  return `
    CREATE TABLE game_providers (
      group_id              text PRIMARY KEY,
      name                  text NOT NULL,
      status                text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE','INACTIVE')),
      rate_limit_per_second integer CHECK (rate_limit_per_second >= 0),${secrets ? `
      launch_public_key_pem text,` : ''}
      created_at            timestamptz NOT NULL DEFAULT now(),
      updated_at            timestamptz NOT NULL DEFAULT now()
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
      wallet_url            text NOT NULL,${secrets ? `
      wallet_secret_enc     text NOT NULL,
      launch_key_enc        text NOT NULL,` : ''}
      status                text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE','INACTIVE')),
      refund_on_credit_fail boolean NOT NULL DEFAULT false,
      credit_on_disconnect  boolean NOT NULL DEFAULT false,
      created_at            timestamptz NOT NULL DEFAULT now(),
      updated_at            timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX casinos_created ON casinos (created_at DESC);

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
  `;
}
