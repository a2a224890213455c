/**
 * Back-office accounts, casino API tokens, the audit trail, and what people decided about the money
 * views' items.
 *
 * - A password is stored only as an argon2id hash, a TOTP secret only sealed (AES-256-GCM under
 *   DATA_ENCRYPTION_KEY), recovery codes and API tokens only as SHA-256 hashes (they are 80 to 256
 *   random bits, so a fast hash is enough; a password is not). `totp_last_step` refuses a TOTP code a
 *   second time (RFC 6238 section 5.2).
 * - The audit trail is append-only: a trigger refuses UPDATE, DELETE and TRUNCATE, and each row
 *   carries the previous row's hash (libs/shared audit.ts verifies the chain).
 * - The reconciliation queue and the flagged wins are derived from the ledger at read time; these
 *   tables hold only what a person decided about an item, and the per-casino win-flag thresholds.
 */
export const ACCOUNTS_SQL = `
    CREATE TABLE operator_accounts (
      account_id        uuid PRIMARY KEY,
      email             text NOT NULL,
      email_normalized  text NOT NULL UNIQUE,
      display_name      text NOT NULL,
      password_hash     text NOT NULL,
      role              text NOT NULL CHECK (role IN ('admin','support','finance')),
      scope_type        text NOT NULL CHECK (scope_type IN ('platform','casino','studio')),
      scope_id          text,
      status            text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE','DISABLED')),
      totp_secret_enc   text,
      totp_enrolled_at  timestamptz,
      totp_last_step    bigint,
      created_at        timestamptz NOT NULL DEFAULT now(),
      updated_at        timestamptz NOT NULL DEFAULT now(),
      CHECK ((scope_type = 'platform') = (scope_id IS NULL))
    );
    CREATE INDEX operator_accounts_scope ON operator_accounts (scope_type, scope_id);

    CREATE TABLE operator_recovery_codes (
      account_id  uuid NOT NULL REFERENCES operator_accounts(account_id) ON DELETE CASCADE,
      code_hash   text NOT NULL,
      used_at     timestamptz,
      PRIMARY KEY (account_id, code_hash)
    );

    CREATE TABLE casino_api_tokens (
      token_id     uuid PRIMARY KEY,
      provider_id  text NOT NULL,
      name         text NOT NULL,
      token_hash   text NOT NULL UNIQUE,
      created_by   text NOT NULL,
      created_at   timestamptz NOT NULL DEFAULT now(),
      revoked_at   timestamptz
    );
    CREATE INDEX casino_api_tokens_provider ON casino_api_tokens (provider_id);

    CREATE TABLE audit_log (
      id              bigserial PRIMARY KEY,
      occurred_at     timestamptz NOT NULL,
      actor_type      text NOT NULL,
      actor_id        text NOT NULL,
      actor_label     text,
      client_address  text,
      method          text NOT NULL,
      route           text NOT NULL,
      request_id      text,
      action          text NOT NULL,
      target          text,
      before          jsonb,
      after           jsonb,
      prev_hash       text NOT NULL,
      hash            text NOT NULL
    );
    CREATE INDEX audit_log_time ON audit_log (occurred_at);
    CREATE INDEX audit_log_actor ON audit_log (actor_id, id);

    CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit_log is append-only';
    END $$;
    CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
      FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

    CREATE TABLE reconciliation_decisions (
      kind         text NOT NULL,
      provider_id  text NOT NULL,
      record_id    text NOT NULL,
      group_id     text NOT NULL,
      state        text NOT NULL CHECK (state IN ('ACKNOWLEDGED','RESOLVED')),
      note         text NOT NULL,
      decided_by   text NOT NULL,
      decided_at   timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (kind, provider_id, record_id)
    );

    CREATE TABLE win_flag_thresholds (
      provider_id      text PRIMARY KEY,
      multiplier_over  numeric NOT NULL CHECK (multiplier_over >= 0),
      payout_over      jsonb NOT NULL,
      updated_by       text NOT NULL,
      updated_at       timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE win_reviews (
      transaction_pk  uuid PRIMARY KEY,
      provider_id     text NOT NULL,
      group_id        text NOT NULL,
      note            text NOT NULL,
      reviewed_by     text NOT NULL,
      reviewed_at     timestamptz NOT NULL DEFAULT now()
    );
`;
