/**
 * The ledger (docs/ledger.md): transactions, their attempts and rounds, partitioned by UTC month,
 * the functions that create the partitions, and the registry of archived months. Both databases have
 * the same tables; which secondary indexes each keeps differs (MONEY_LEDGER_INDEXES, and
 * REPORTING_LEDGER_INDEXES on the reporting database only).
 *
 * - transactions and rounds are partitioned by RANGE (created_at); transaction_attempts by the
 *   created_at of its transaction (transaction_created_at), so a transaction and all of its attempts,
 *   however late, live in the same month and are archived together. A unique key of a partitioned
 *   table must contain the partition key: the primary keys are (id, created_at) and
 *   (transaction_pk, attempt, transaction_created_at); uniqueness of the games' ids is kept by the key
 *   tables (keys.ts).
 * - A DEFAULT partition per table catches a row no month's partition was made for (never a failed
 *   write); ledger_create_partition moves such rows into their month when it creates it.
 * - The CHECK constraints keep the names the migrations before the baseline gave them (`..._check1`:
 *   the partitioned tables replaced heaps whose constraints held the plain names), so that a database
 *   built by them and one built by the baseline are the same.
 */

export const LEDGER_TABLES_SQL = `
  CREATE TABLE transactions (
    id                      uuid NOT NULL,
    provider_id             text NOT NULL,
    transaction_id          text NOT NULL,
    previous_transaction_id text,
    category                text NOT NULL CONSTRAINT transactions_category_check1 CHECK (category IN ('CASH_OUT','CASH_IN')),
    status                  text NOT NULL CONSTRAINT transactions_status_check1 CHECK (status IN ('PENDING','SUCCESS','FAILED')),
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
    -- A credit that settled this bet before the bet succeeded (the bet's outcome then opens its round
    -- already SETTLED), and that credit's created_at (its partition). Only read from the row itself.
    settled_by              uuid,
    settled_by_at           timestamptz,
    PRIMARY KEY (id, created_at)
  ) PARTITION BY RANGE (created_at);

  -- Every attempt of a money call, append-only: what was asked and what the casino answered, even when
  -- a later attempt with the same transactionId replaced the transaction's live state. No foreign key:
  -- rows are only ever written by the statement that claims the transaction itself.
  CREATE TABLE transaction_attempts (
    transaction_pk          uuid NOT NULL,
    attempt                 integer NOT NULL,
    transaction_created_at  timestamptz NOT NULL,
    request                 json NOT NULL,
    outcome                 text CONSTRAINT transaction_attempts_outcome_check1 CHECK (outcome IN ('SUCCESS','FAILED')),
    casino_status           integer,
    casino_body             text,
    error_code              text,
    error_message           text,
    started_at              timestamptz NOT NULL DEFAULT now(),
    finished_at             timestamptz,
    PRIMARY KEY (transaction_pk, attempt, transaction_created_at)
  ) PARTITION BY RANGE (transaction_created_at);

  CREATE TABLE rounds (
    id                    uuid NOT NULL,
    provider_id           text NOT NULL,
    round_id              text NOT NULL,
    group_id              text NOT NULL,
    game_id               integer NOT NULL,
    player_id             text NOT NULL,
    session_id            text NOT NULL,
    currency              text NOT NULL,
    language              text NOT NULL,
    status                text NOT NULL CONSTRAINT rounds_status_check1 CHECK (status IN ('OPEN','SETTLED')),
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
    PRIMARY KEY (id, created_at)
  ) PARTITION BY RANGE (created_at);

  CREATE TABLE transactions_pdefault PARTITION OF transactions DEFAULT;
  CREATE TABLE transaction_attempts_pdefault PARTITION OF transaction_attempts DEFAULT;
  CREATE TABLE rounds_pdefault PARTITION OF rounds DEFAULT;

  -- Each casino's round-ended notification and its result, as the notifier answered the game (the
  -- round's story in the back office). One row per casino per call; a repeated call adds rows.
  CREATE TABLE round_ended_notifications (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider_id   text NOT NULL,
    round_id      text NOT NULL,
    group_id      text NOT NULL,
    request_id    text,
    outcome       text NOT NULL,
    error_message text,
    notified_at   timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX round_ended_notifications_round ON round_ended_notifications (provider_id, round_id, id);

  -- The registry of archived months (docs/ledger.md, "Retention and archives"): exporting -> exported
  -- (files and manifest written and verified) -> archived (keys copied and the month's partitions
  -- dropped, in one transaction). A month not archived is redone from the start. \`manifest\` is the
  -- manifest file's exact text (its sha256 anchors the archive's hash chain); \`digests\`, per table, a
  -- count and a hash of the rows as exported, compared again under the lock before the drop.
  CREATE TABLE ledger_archives (
    month           date PRIMARY KEY CHECK (month = date_trunc('month', month)::date),
    state           text NOT NULL CHECK (state IN ('exporting', 'exported', 'archived')),
    manifest_sha256 text,
    manifest        json,
    digests         jsonb,
    started_at      timestamptz NOT NULL DEFAULT now(),
    exported_at     timestamptz,
    archived_at     timestamptz,
    updated_at      timestamptz NOT NULL DEFAULT now()
  );
`;

/**
 * ledger_create_partition: the partition of one month of one ledger table, unless it exists; true if
 * it made it. Rows written while their month had no partition wait in the default partition; they
 * leave it through a DELETE and come back through an INSERT into the parent once the month is
 * attached. Both are statements on the published parent, so the reporting database
 * (publish_via_partition_root) sees the move: an insert into a table not yet attached is published
 * nowhere.
 */
export const CREATE_PARTITION_SQL = `
  CREATE OR REPLACE FUNCTION ledger_create_partition(parent text, month date) RETURNS boolean LANGUAGE plpgsql AS $$
  DECLARE
    m date := date_trunc('month', month)::date;
    part text := ledger_partition_name(parent, m);
    key text := ledger_partition_key(parent);
    lo timestamptz := (m::timestamp AT TIME ZONE 'UTC');
    hi timestamptz := ((m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
    waiting boolean := false;
  BEGIN
    IF to_regclass(part) IS NOT NULL THEN RETURN false; END IF;
    -- Serialises concurrent creators of the same table (the job on two replicas, a migration).
    PERFORM pg_advisory_xact_lock(hashtext('ledger_partitions:' || parent));
    IF to_regclass(part) IS NOT NULL THEN RETURN false; END IF;
    IF to_regclass(parent || '_pdefault') IS NOT NULL THEN
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE %I >= $1 AND %I < $2)', parent || '_pdefault', key, key) INTO waiting USING lo, hi;
    END IF;
    IF waiting THEN
      -- ATTACH refuses while the default partition holds rows of the new range: they wait aside.
      EXECUTE format('CREATE TEMP TABLE ledger_moving_rows (LIKE %I)', parent);
      EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) INSERT INTO ledger_moving_rows SELECT * FROM moved',
                     parent || '_pdefault', key, key) USING lo, hi;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', part, parent);
    -- A valid CHECK matching the bound lets ATTACH skip scanning the new partition.
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (%I >= %L AND %I < %L)', part, part || '_range', key, lo, key, hi);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', part, part || '_range');
    IF waiting THEN
      EXECUTE format('INSERT INTO %I SELECT * FROM ledger_moving_rows', parent);
      DROP TABLE ledger_moving_rows;
    END IF;
    RETURN true;
  END $$;
`;

/**
 * The partition functions. Each month's partition is named <table>_pYYYY_MM and covers
 * [first instant of the month UTC, first instant of the next). ledger_ensure_partitions(months_ahead)
 * makes the current month and the months ahead for the three tables (the baseline runs it, the
 * `partitions` job every hour); ledger_partitions lists the months that have a partition.
 */
export const PARTITION_FUNCTIONS_SQL = `
  CREATE OR REPLACE FUNCTION ledger_partition_key(parent text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE parent WHEN 'transaction_attempts' THEN 'transaction_created_at' ELSE 'created_at' END
  $$;

  CREATE OR REPLACE FUNCTION ledger_partition_name(parent text, month date) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT parent || '_p' || to_char(month, 'YYYY_MM')
  $$;

  ${CREATE_PARTITION_SQL}

  -- Every ledger table has a partition for each month from the current one to months_ahead ahead.
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

/** Months ahead the baseline creates; the `partitions` job keeps LEDGER_PARTITIONS_AHEAD_MONTHS (default 3). */
export const PARTITIONS_AHEAD = 3;

/** The current month's partitions and the months ahead, as the baseline leaves them. */
export const ENSURE_PARTITIONS_SQL = `SELECT ledger_ensure_partitions(${PARTITIONS_AHEAD})`;

/**
 * The secondary indexes the ledger keeps on the money database, each with what uses it
 * (docs/ledger.md, "Indexes of the money database"; a test fails if another appears there).
 */
export const MONEY_LEDGER_INDEXES: Record<string, string> = {
  transactions_group_status_time: "the abandoned-transaction alarm: PENDING per studio older than the in-flight window (services/wallet data/transactions.ts, abandonedTransactions)",
  transactions_created_id: 'moving rows out of the default partition when a month is created (ledger_create_partition)',
  rounds_created_id: 'the same, for rounds',
};

/**
 * Indexes both databases' ledgers carry: MONEY_LEDGER_INDEXES, and a BRIN index of the attempts'
 * start (casino wallet health reads the last hour and day; a BRIN entry per 128 pages costs a money
 * call next to nothing).
 */
export const MONEY_INDEXES_SQL = `
  CREATE INDEX transactions_group_status_time ON transactions (group_id, status, created_at DESC, id) INCLUDE (category);
  CREATE INDEX transactions_created_id ON transactions (created_at DESC, id);
  CREATE INDEX rounds_created_id ON rounds (created_at DESC, id);
  CREATE INDEX transaction_attempts_started ON transaction_attempts USING brin (started_at) WITH (autosummarize = on);
`;
