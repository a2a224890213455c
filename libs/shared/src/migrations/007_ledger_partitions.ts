import type { Knex } from 'knex';

/**
 * The ledger at a billion rows (docs/ledger.md): the money history is partitioned by month, and
 * the idempotency of transactionIds and roundIds moves to key records of their own.
 *
 * - transactions and rounds are partitioned by RANGE (created_at), one partition per UTC month;
 *   transaction_attempts by the created_at of their transaction (transaction_created_at), so a
 *   transaction and all of its attempts, however late, live in the same month and are archived
 *   together. A unique key of a partitioned table must contain the partition key, so the
 *   primary keys become (id, created_at) and (transaction_pk, attempt, transaction_created_at).
 * - transaction_keys (provider_id, transaction_id) and round_keys (provider_id, round_id) hold
 *   the uniqueness the partitions cannot: the claim inserts the key and the record in one
 *   statement, so concurrent identical requests still reach the casino at most once. A key
 *   points at its record by (id, created_at), which prunes every money statement to one
 *   partition. When a month is archived, each key still inside the idempotency window receives
 *   its record's last state (`archived`), so a repeat still replays (see ledger/retention).
 * - Partitions are created ahead of time by ledger_ensure_partitions(months_ahead), called here
 *   and by the ledger maintenance job; a DEFAULT partition catches a row no partition was made
 *   for (never a failed write), and the function moves such rows into their month when it
 *   creates it.
 * - rollup_stale_days: days whose rows a takeover rewrote after the daily rollups counted them;
 *   the rollup job recounts them (ledger/rollups).
 *
 * Existing data is copied month by month into the new layout inside this migration's
 * transaction (the old tables are locked for its whole length: run it in a maintenance window,
 * or follow the live procedure of docs/ledger.md). Indexes are built after the copy.
 */

const MONEY_INDEXES = `
  CREATE INDEX transactions_group_created ON transactions (group_id, created_at DESC, id);
  CREATE INDEX transactions_group_provider_created ON transactions (group_id, provider_id, created_at DESC);
  CREATE INDEX transactions_group_status_created ON transactions (group_id, status, category, created_at DESC);
  CREATE INDEX transactions_group_player_created ON transactions (group_id, player_id, created_at DESC);
  CREATE INDEX transactions_group_game_created ON transactions (group_id, game_id, created_at DESC);
  CREATE INDEX transactions_group_round ON transactions (group_id, round_id);
  CREATE INDEX transactions_group_txid ON transactions (group_id, transaction_id);
  CREATE INDEX transactions_group_completed ON transactions (group_id, completed_at DESC);
  CREATE INDEX transactions_created_id ON transactions (created_at DESC, id);
  CREATE INDEX transactions_unsettled ON transactions (claimed_at) WHERE status <> 'SUCCESS';
  CREATE INDEX transactions_settling_credit ON transactions (provider_id, previous_transaction_id)
    WHERE category = 'CASH_IN' AND previous_transaction_id IS NOT NULL;
  CREATE INDEX transactions_paid_credits ON transactions (created_at DESC) WHERE category = 'CASH_IN' AND status = 'SUCCESS';

  CREATE INDEX rounds_group_created ON rounds (group_id, created_at DESC, id);
  CREATE INDEX rounds_group_provider_created ON rounds (group_id, provider_id, created_at DESC);
  CREATE INDEX rounds_group_status_created ON rounds (group_id, status, created_at DESC);
  CREATE INDEX rounds_group_player_created ON rounds (group_id, player_id, created_at DESC);
  CREATE INDEX rounds_group_game_created ON rounds (group_id, game_id, created_at DESC);
  CREATE INDEX rounds_group_opened ON rounds (group_id, opened_at DESC);
  CREATE INDEX rounds_group_settled ON rounds (group_id, settled_at DESC);
  CREATE INDEX rounds_group_round ON rounds (group_id, round_id);
  CREATE INDEX rounds_created_id ON rounds (created_at DESC, id);
`;

const TRANSACTION_COLUMNS = `
  id uuid NOT NULL, provider_id text NOT NULL, transaction_id text NOT NULL, previous_transaction_id text,
  category text NOT NULL CHECK (category IN ('CASH_OUT','CASH_IN')),
  status text NOT NULL CHECK (status IN ('PENDING','SUCCESS','FAILED')),
  group_id text NOT NULL, game_id integer NOT NULL, player_id text NOT NULL, session_id text NOT NULL, round_id text NOT NULL,
  amount numeric(20,2) NOT NULL, currency text NOT NULL, language text NOT NULL, reason text, applied_multiplier numeric,
  bet_amount numeric(20,2), award_id text, campaign_id text, is_last_freebet boolean, is_retry boolean NOT NULL DEFAULT false,
  balance numeric(20,2), username text, error_code text, error_message text, request_fingerprint text NOT NULL,
  attempt integer NOT NULL DEFAULT 1, claimed_at timestamptz NOT NULL DEFAULT now(), completed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
  settled_by uuid, settled_by_at timestamptz`;

const ROUND_COLUMNS = `
  id uuid NOT NULL, provider_id text NOT NULL, round_id text NOT NULL, group_id text NOT NULL, game_id integer NOT NULL,
  player_id text NOT NULL, session_id text NOT NULL, currency text NOT NULL, language text NOT NULL,
  status text NOT NULL CHECK (status IN ('OPEN','SETTLED')), bet_amount numeric(20,2) NOT NULL, bet_transaction_id text NOT NULL,
  payout_amount numeric(20,2), applied_multiplier numeric, settle_transaction_id text, settle_reason text, outcome text,
  game_data json, settlement_data json, opened_at timestamptz NOT NULL, settled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now()`;

const ATTEMPT_COLUMNS = `
  transaction_pk uuid NOT NULL, attempt integer NOT NULL, transaction_created_at timestamptz NOT NULL, request json NOT NULL,
  outcome text CHECK (outcome IN ('SUCCESS','FAILED')), casino_status integer, casino_body text, error_code text,
  error_message text, started_at timestamptz NOT NULL DEFAULT now(), finished_at timestamptz`;

/**
 * The partition functions. Each month's partition is named <table>_pYYYY_MM and covers
 * [first instant of the month UTC, first instant of the next); rows of a month that had none
 * went to <table>_pdefault and are moved into the month's partition when it is created.
 */
const FUNCTIONS = `
  CREATE OR REPLACE FUNCTION ledger_partition_key(parent text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE parent WHEN 'transaction_attempts' THEN 'transaction_created_at' ELSE 'created_at' END
  $$;

  CREATE OR REPLACE FUNCTION ledger_partition_name(parent text, month date) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT parent || '_p' || to_char(month, 'YYYY_MM')
  $$;

  -- Creates the partition of one month of one money table if it does not exist; true if it did.
  CREATE OR REPLACE FUNCTION ledger_create_partition(parent text, month date) RETURNS boolean LANGUAGE plpgsql AS $$
  DECLARE
    m date := date_trunc('month', month)::date;
    part text := ledger_partition_name(parent, m);
    key text := ledger_partition_key(parent);
    lo timestamptz := (m::timestamp AT TIME ZONE 'UTC');
    hi timestamptz := ((m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
  BEGIN
    IF to_regclass(part) IS NOT NULL THEN RETURN false; END IF;
    -- Serialises concurrent creators of the same table (the job on two replicas, a migration).
    PERFORM pg_advisory_xact_lock(hashtext('ledger_partitions:' || parent));
    IF to_regclass(part) IS NOT NULL THEN RETURN false; END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', part, parent);
    -- Rows written while the month had no partition move in before it is attached (ATTACH checks
    -- that the default partition holds none of the new range).
    IF to_regclass(parent || '_pdefault') IS NOT NULL THEN
      EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved',
                     parent || '_pdefault', key, key, part) USING lo, hi;
    END IF;
    -- A valid CHECK matching the bound lets ATTACH skip scanning the new partition.
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (%I >= %L AND %I < %L)', part, part || '_range', key, lo, key, hi);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', part, part || '_range');
    RETURN true;
  END $$;

  -- Every money table has a partition for each month from the current one to months_ahead ahead.
  -- Returns how many partitions it created.
  CREATE OR REPLACE FUNCTION ledger_ensure_partitions(months_ahead integer) RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE
    parent text;
    m date;
    created integer := 0;
    this_month date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
  BEGIN
    FOREACH parent IN ARRAY ARRAY['transactions', 'transaction_attempts', 'rounds'] LOOP
      FOR i IN 0..months_ahead LOOP
        m := (this_month + make_interval(months => i))::date;
        IF ledger_create_partition(parent, m) THEN created := created + 1; END IF;
      END LOOP;
    END LOOP;
    RETURN created;
  END $$;

  -- The months that have a partition, per table (the archive job and the tests read it).
  CREATE OR REPLACE VIEW ledger_partitions AS
    SELECT parent.relname::text AS parent_table, child.relname::text AS partition,
           CASE WHEN child.relname ~ '_p[0-9]{4}_[0-9]{2}$'
                THEN to_date(substring(child.relname from '_p([0-9]{4}_[0-9]{2})$'), 'YYYY_MM') END AS month
      FROM pg_inherits i
      JOIN pg_class parent ON parent.oid = i.inhparent
      JOIN pg_class child ON child.oid = i.inhrelid
     WHERE parent.relname IN ('transactions', 'transaction_attempts', 'rounds');
`;

/** Months ahead the migration creates; the maintenance job keeps LEDGER_PARTITIONS_AHEAD_MONTHS (default 3). */
const AHEAD = 3;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    SET LOCAL lock_timeout = '30s';
    LOCK TABLE transactions, transaction_attempts, rounds IN ACCESS EXCLUSIVE MODE;
    ALTER TABLE transactions RENAME TO transactions_legacy;
    ALTER TABLE transaction_attempts RENAME TO transaction_attempts_legacy;
    ALTER TABLE rounds RENAME TO rounds_legacy;
  `);
  // Index and constraint names are global: the old ones go before the new tables take them.
  const { rows: legacyIndexes } = await knex.raw<{ rows: { name: string; constraint: boolean }[] }>(`
    SELECT i.relname AS name, EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.oid) AS constraint
      FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
     WHERE t.relname IN ('transactions_legacy', 'transaction_attempts_legacy', 'rounds_legacy')`);
  for (const index of legacyIndexes) {
    if (index.constraint) {
      const { rows } = await knex.raw<{ rows: { table: string }[] }>(
        `SELECT t.relname AS table FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class i ON i.oid = c.conindid WHERE i.relname = ?`,
        [index.name],
      );
      await knex.raw(`ALTER TABLE ?? DROP CONSTRAINT ??`, [rows[0].table, index.name]);
    } else {
      await knex.raw(`DROP INDEX ??`, [index.name]);
    }
  }

  await knex.raw(`
    CREATE TABLE transactions (${TRANSACTION_COLUMNS}, PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at);
    CREATE TABLE transaction_attempts (${ATTEMPT_COLUMNS}, PRIMARY KEY (transaction_pk, attempt, transaction_created_at))
      PARTITION BY RANGE (transaction_created_at);
    CREATE TABLE rounds (${ROUND_COLUMNS}, PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at);
    CREATE TABLE transactions_pdefault PARTITION OF transactions DEFAULT;
    CREATE TABLE transaction_attempts_pdefault PARTITION OF transaction_attempts DEFAULT;
    CREATE TABLE rounds_pdefault PARTITION OF rounds DEFAULT;

    -- The idempotency keys. archived: the record's last state once its month was archived.
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

    CREATE TABLE rollup_stale_days (
      day       date PRIMARY KEY,
      marked_at timestamptz NOT NULL DEFAULT now()
    );

    ${FUNCTIONS}
  `);

  // A partition for every month the old tables hold, then the months ahead.
  await knex.raw(`
    SELECT ledger_create_partition(p.parent, m.month::date)
      FROM (SELECT date_trunc('month', min(created_at) AT TIME ZONE 'UTC') AS lo FROM
              (SELECT min(created_at) AS created_at FROM transactions_legacy UNION ALL SELECT min(created_at) FROM rounds_legacy) x) b,
           generate_series(b.lo, date_trunc('month', now() AT TIME ZONE 'UTC'), interval '1 month') AS m(month),
           unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) AS p(parent)
     WHERE b.lo IS NOT NULL;
    SELECT ledger_ensure_partitions(${AHEAD});
  `);

  await knex.raw(`
    INSERT INTO transactions SELECT t.*, NULL::timestamptz FROM transactions_legacy t;
    -- settled_by_at: the created_at of the credit that settled this bet early.
    UPDATE transactions b SET settled_by_at = c.created_at FROM transactions_legacy c WHERE b.settled_by = c.id;
    INSERT INTO transaction_attempts (transaction_pk, attempt, transaction_created_at, request, outcome, casino_status, casino_body,
                                      error_code, error_message, started_at, finished_at)
      SELECT a.transaction_pk, a.attempt, t.created_at, a.request, a.outcome, a.casino_status, a.casino_body, a.error_code,
             a.error_message, a.started_at, a.finished_at
        FROM transaction_attempts_legacy a JOIN transactions_legacy t ON t.id = a.transaction_pk;
    INSERT INTO rounds SELECT * FROM rounds_legacy;
    INSERT INTO transaction_keys (provider_id, transaction_id, id, created_at) SELECT provider_id, transaction_id, id, created_at FROM transactions_legacy;
    INSERT INTO round_keys (provider_id, round_id, id, created_at) SELECT provider_id, round_id, id, created_at FROM rounds_legacy;
    DROP TABLE transactions_legacy, transaction_attempts_legacy, rounds_legacy;
    ${MONEY_INDEXES}
    CREATE INDEX transaction_keys_created ON transaction_keys USING brin (created_at);
    CREATE INDEX round_keys_created ON round_keys USING brin (created_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE transactions, transaction_attempts, rounds, transaction_keys, round_keys, rollup_stale_days CASCADE;
    DROP VIEW IF EXISTS ledger_partitions;
    DROP FUNCTION IF EXISTS ledger_ensure_partitions(integer), ledger_create_partition(text, date), ledger_partition_name(text, date), ledger_partition_key(text);
  `);
}
