/**
 * Sessions and launch tokens. Sessions live in Redis for the hot path; `sessions` is the durable copy
 * and the archive that the cash-in retry route reads after the live session expired. The wallet token
 * is a secret: the reporting database's copy has no such column (`secrets: false`).
 * `launch_token_uses` refuses a launch token's second use until it expires.
 */
export function sessionsSql({ secrets }: { secrets: boolean }): string {
  return `
    CREATE TABLE sessions (
      session_id        text PRIMARY KEY,
      group_id          text NOT NULL,
      game_id           integer NOT NULL,
      provider_id       text NOT NULL,
      player_id         text NOT NULL,
      currency          text NOT NULL,
      language          text NOT NULL,
      username          text,${secrets ? `
      wallet_token_enc  text NOT NULL,` : ''}
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
  `;
}
