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
 *
 * Which path (docs/ledger.md, "Migrating an existing database"):
 * - `ledger_live_migration` says `ready` (`npm run ledger -- migrate-live` prepared the old tables
 *   while money calls ran): the switch, in one short transaction, with no copy (switchLive).
 * - a live migration started but not ready: refused (finish it with migrate-live).
 * - otherwise the offline copy, but only when the old tables hold at most
 *   LEDGER_OFFLINE_MIGRATION_MAX_ROWS records (transactions + rounds, default 100,000: a fresh
 *   install has none) or LEDGER_MIGRATION_MODE=offline says to take the long lock anyway.
 */

export const MONEY_INDEXES = `
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
 * The idempotency keys (archived: the record's last state once its month was archived) and the
 * days a takeover made stale. IF NOT EXISTS: the live migration creates them before the switch.
 */
export const KEY_TABLES = `
    CREATE TABLE IF NOT EXISTS transaction_keys (
      provider_id    text NOT NULL,
      transaction_id text NOT NULL,
      id             uuid NOT NULL,
      created_at     timestamptz NOT NULL,
      archived       jsonb,
      PRIMARY KEY (provider_id, transaction_id)
    );
    CREATE TABLE IF NOT EXISTS round_keys (
      provider_id text NOT NULL,
      round_id    text NOT NULL,
      id          uuid NOT NULL,
      created_at  timestamptz NOT NULL,
      PRIMARY KEY (provider_id, round_id)
    );
    CREATE INDEX IF NOT EXISTS transaction_keys_created ON transaction_keys USING brin (created_at);
    CREATE INDEX IF NOT EXISTS round_keys_created ON round_keys USING brin (created_at);

    CREATE TABLE IF NOT EXISTS rollup_stale_days (
      day       date PRIMARY KEY,
      marked_at timestamptz NOT NULL DEFAULT now()
    );
`;

/**
 * What the live migration (services/admin/src/ledger/live-migration.ts) prepares on the old tables
 * and the switch relies on: per table, a valid unique index that becomes the partition's primary
 * key, and a validated CHECK that proves every row is below the partition's upper bound (so
 * ATTACH PARTITION does not scan the table under its lock). The trigger functions keep the key
 * records and the new columns in step with the old release's writes until the switch.
 */
export const LIVE = {
  primaryKeys: {
    transactions: { index: 'transactions_live_id_created', columns: 'id, created_at' },
    rounds: { index: 'rounds_live_id_created', columns: 'id, created_at' },
    transaction_attempts: { index: 'transaction_attempts_live_pk', columns: 'transaction_pk, attempt, transaction_created_at' },
  },
  bounds: {
    transactions: 'transactions_live_bound',
    rounds: 'rounds_live_bound',
    transaction_attempts: 'transaction_attempts_live_bound',
  },
  triggerFunctions: ['ledger_live_transaction_key', 'ledger_live_round_key', 'ledger_live_settled_by_at', 'ledger_live_attempt_created'],
} as const;

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

/** The state a live migration left (null: none started), read by 007 and the migrate-live command. */
export async function liveMigrationStep(knex: Knex): Promise<string | null> {
  const { rows } = await knex.raw<{ rows: { t: string | null }[] }>(`SELECT to_regclass('ledger_live_migration')::text AS t`);
  if (!rows[0].t) return null;
  const state = await knex.raw<{ rows: { step: string }[] }>('SELECT step FROM ledger_live_migration');
  return state.rows[0]?.step ?? null;
}

/** Refuses the offline copy of a large ledger unless asked for (see the header). */
async function guardOfflineCopy(knex: Knex): Promise<void> {
  const mode = process.env.LEDGER_MIGRATION_MODE ?? 'auto';
  if (mode === 'offline') return;
  const max = Number(process.env.LEDGER_OFFLINE_MIGRATION_MAX_ROWS ?? 100_000);
  // Bounded counts: a large table is not scanned to learn that it is large.
  const { rows } = await knex.raw<{ rows: { n: string }[] }>(
    `SELECT (SELECT count(*) FROM (SELECT 1 FROM transactions LIMIT ?) t) + (SELECT count(*) FROM (SELECT 1 FROM rounds LIMIT ?) r) AS n`,
    [max + 1, max + 1],
  );
  const records = Number(rows[0].n);
  if (mode === 'live' || records > max) {
    throw new Error(
      `007_ledger_partitions: the ledger holds ${records > max ? `more than ${max}` : records} records; copying them would lock every money call ` +
        'for the whole copy. Migrate it live with `npm run ledger -- migrate-live` (docs/ledger.md, "A live system"), ' +
        'or set LEDGER_MIGRATION_MODE=offline to copy it in a maintenance window.',
    );
  }
}

export async function up(knex: Knex): Promise<void> {
  const live = await liveMigrationStep(knex);
  if (live === 'ready') return switchLive(knex);
  if (live) throw new Error(`007_ledger_partitions: a live migration of the ledger is at step "${live}": finish it with \`npm run ledger -- migrate-live\``);
  await guardOfflineCopy(knex);
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

    ${KEY_TABLES}

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
  `);
}

/**
 * The live switch (docs/ledger.md, "A live system"): the old tables become the first partition
 * of the new partitioned parents, [MINVALUE, legacy_until), without a copy. Everything that
 * scans (keys, new columns, unique indexes, CHECKs) was done beforehand by migrate-live while
 * money calls ran; under the locks here there is catalog work only. Money calls wait for it (at
 * most lock_timeout behind a long reader, then this transaction gives up and migrate-live retries).
 */
async function switchLive(knex: Knex): Promise<void> {
  const lockTimeout = process.env.LEDGER_SWITCH_LOCK_TIMEOUT ?? '2s';
  if (!/^\d+(ms|s)?$/.test(lockTimeout)) throw new Error('LEDGER_SWITCH_LOCK_TIMEOUT must look like 2s or 500ms');
  // Every money statement takes `transactions`; waiting for it while holding nothing cannot
  // deadlock. A money statement whose cached plan locked transaction_attempts or rounds first may
  // then wait for us while we wait for it: the second LOCK gives up before the deadlock detector
  // would pick a money call as the victim (half of deadlock_timeout), and migrate-live tries again.
  await knex.raw(`SET LOCAL lock_timeout = '${lockTimeout}'`);
  await knex.raw('LOCK TABLE transactions IN ACCESS EXCLUSIVE MODE');
  await knex.raw(`SELECT set_config('lock_timeout', greatest(10, extract(epoch from current_setting('deadlock_timeout')::interval) * 500)::int::text, true)`);
  await knex.raw('LOCK TABLE transaction_attempts, rounds IN ACCESS EXCLUSIVE MODE');
  const state = (await knex.raw<{ rows: { bound: string; in_time: boolean }[] }>(
    `SELECT legacy_until::text AS bound, legacy_until > now() + interval '1 day' AS in_time FROM ledger_live_migration`,
  )).rows[0];
  if (!state.in_time) throw new Error(`007_ledger_partitions: the live migration's bound ${state.bound} is less than a day away: run migrate-live again to move it`);
  const needed = [...Object.values(LIVE.primaryKeys).map((p) => p.index), ...Object.values(LIVE.bounds)];
  const { rows: missing } = await knex.raw<{ rows: { name: string }[] }>(
    `SELECT name FROM unnest(?::text[]) AS name
      WHERE NOT EXISTS (SELECT 1 FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE i.relname = name AND x.indisvalid AND x.indisunique)
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = name AND c.convalidated)`,
    [needed],
  );
  // The key tables exist since migrate-live prepared them (not touched here: a lock on them could
  // deadlock with a claim waiting for ours).
  const { rows: keyTables } = await knex.raw<{ rows: { n: number }[] }>(
    `SELECT count(*)::int AS n FROM unnest(ARRAY['transaction_keys', 'round_keys', 'rollup_stale_days']) t WHERE to_regclass(t) IS NOT NULL`,
  );
  if (missing.length || keyTables[0].n !== 3) {
    throw new Error(`007_ledger_partitions: the live migration is not ready (${missing.map((m) => m.name).join(', ') || 'key tables'}): run migrate-live`);
  }

  // The triggers go with their functions; then the old tables step aside.
  await knex.raw(`
    ${LIVE.triggerFunctions.map((f) => `DROP FUNCTION IF EXISTS ${f}() CASCADE;`).join('\n')}
    ALTER TABLE transactions RENAME TO transactions_legacy;
    ALTER TABLE transaction_attempts RENAME TO transaction_attempts_legacy;
    ALTER TABLE rounds RENAME TO rounds_legacy;
  `);
  // Index names are global: the old keys go (the key records hold uniqueness now; the new primary
  // keys are the prepared unique indexes) and the other indexes take a name of their own, so the
  // parents' indexes of the same definition adopt them instead of building new ones.
  const { rows: indexes } = await knex.raw<{ rows: { name: string; table: string; constraint: string | null }[] }>(`
    SELECT i.relname AS name, t.relname AS table, (SELECT c.conname FROM pg_constraint c WHERE c.conindid = i.oid) AS constraint
      FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
     WHERE t.relname IN ('transactions_legacy', 'transaction_attempts_legacy', 'rounds_legacy')`);
  const prepared = new Set<string>(Object.values(LIVE.primaryKeys).map((p) => p.index));
  for (const index of indexes) {
    if (prepared.has(index.name)) continue;
    if (index.constraint) await knex.raw('ALTER TABLE ?? DROP CONSTRAINT ??', [index.table, index.constraint]);
    else await knex.raw('ALTER INDEX ?? RENAME TO ??', [index.name, `legacy_${index.name}`.slice(0, 63)]);
  }
  await knex.raw(`
    ALTER TABLE transaction_attempts_legacy ALTER COLUMN transaction_created_at SET NOT NULL;
    ${Object.entries(LIVE.primaryKeys)
      .map(([table, p]) => `ALTER TABLE ${table}_legacy ADD CONSTRAINT ${table}_legacy_pkey PRIMARY KEY USING INDEX ${p.index};`)
      .join('\n')}
    CREATE TABLE transactions (${TRANSACTION_COLUMNS}, PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at);
    CREATE TABLE transaction_attempts (${ATTEMPT_COLUMNS}, PRIMARY KEY (transaction_pk, attempt, transaction_created_at))
      PARTITION BY RANGE (transaction_created_at);
    CREATE TABLE rounds (${ROUND_COLUMNS}, PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at);
  `);
  // A partition must have its parent's CHECK constraints by name: the parents' take the old names.
  const { rows: checks } = await knex.raw<{ rows: { parent: string; name: string; legacy: string }[] }>(`
    SELECT p.relname AS parent, pc.conname AS name, lc.conname AS legacy
      FROM pg_constraint pc JOIN pg_class p ON p.oid = pc.conrelid
      JOIN pg_class l ON l.relname = p.relname || '_legacy'
      JOIN pg_constraint lc ON lc.conrelid = l.oid AND lc.contype = 'c' AND pg_get_constraintdef(lc.oid) = pg_get_constraintdef(pc.oid)
     WHERE pc.contype = 'c' AND p.relname IN ('transactions', 'transaction_attempts', 'rounds') AND pc.conname <> lc.conname`);
  for (const check of checks) await knex.raw('ALTER TABLE ?? RENAME CONSTRAINT ?? TO ??', [check.parent, check.name, check.legacy]);

  // The validated CHECKs imply the partition bound: ATTACH reads no row.
  const bound = state.bound;
  await knex.raw(`
    ALTER TABLE transactions ATTACH PARTITION transactions_legacy FOR VALUES FROM (MINVALUE) TO ('${bound}');
    ALTER TABLE transaction_attempts ATTACH PARTITION transaction_attempts_legacy FOR VALUES FROM (MINVALUE) TO ('${bound}');
    ALTER TABLE rounds ATTACH PARTITION rounds_legacy FOR VALUES FROM (MINVALUE) TO ('${bound}');
    ${Object.entries(LIVE.bounds).map(([table, name]) => `ALTER TABLE ${table}_legacy DROP CONSTRAINT ${name};`).join('\n')}
    CREATE TABLE transactions_pdefault PARTITION OF transactions DEFAULT;
    CREATE TABLE transaction_attempts_pdefault PARTITION OF transaction_attempts DEFAULT;
    CREATE TABLE rounds_pdefault PARTITION OF rounds DEFAULT;
    ${FUNCTIONS}
  `);
  // The months from the bound on are created after the switch (migrate-live, then the partitions
  // job): no row can be written there before the bound, more than a day away.
  // Each index of the parents adopts the old table's index of the same definition (a catalog
  // update) and is built on the new, empty partitions.
  await knex.raw(MONEY_INDEXES);
  await knex.raw(`UPDATE ledger_live_migration SET step = 'switched', updated_at = now()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE transactions, transaction_attempts, rounds, transaction_keys, round_keys, rollup_stale_days CASCADE;
    DROP VIEW IF EXISTS ledger_partitions;
    DROP FUNCTION IF EXISTS ledger_ensure_partitions(integer), ledger_create_partition(text, date), ledger_partition_name(text, date), ledger_partition_key(text);
  `);
}
