/**
 * The idempotency keys (docs/ledger.md, "The layout"): transaction_keys (provider_id, transaction_id)
 * and round_keys (provider_id, round_id) hold the uniqueness the partitioned ledger cannot. The claim
 * inserts the key and the record in one statement, so concurrent identical requests reach the casino
 * at most once. A key points at its record by (id, created_at), which prunes every money statement to
 * one partition. `archived`: the record's last state once its month was archived, so a repeat still
 * replays. BRIN indexes of created_at: retention prunes keys past the idempotency window.
 */
export const KEY_TABLES_SQL = `
  CREATE TABLE transaction_keys (
    provider_id    text NOT NULL,
    transaction_id text NOT NULL,
    id             uuid NOT NULL,
    created_at     timestamptz NOT NULL,
    archived       jsonb,
    PRIMARY KEY (provider_id, transaction_id)
  );
  CREATE TABLE round_keys (
    provider_id text NOT NULL,
    round_id    text NOT NULL,
    id          uuid NOT NULL,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (provider_id, round_id)
  );
  CREATE INDEX transaction_keys_created ON transaction_keys USING brin (created_at);
  CREATE INDEX round_keys_created ON round_keys USING brin (created_at);
`;
