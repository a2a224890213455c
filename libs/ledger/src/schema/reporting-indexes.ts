/**
 * The ledger's reporting and back-office indexes, on the reporting database only (the money database
 * carries MONEY_LEDGER_INDEXES, ledger.ts). Every list is scoped to the calling studio, so most lead
 * with group_id. docs/ledger.md ("Sorted lists") says which list reads which index and what each
 * cost before it existed; the migration that introduced each one is named there as history.
 */

/**
 * The margin and the predicate of the late-completion indexes, shared with the reporting queries:
 * the planner uses a partial index only for a query that repeats its predicate, so both are written
 * from this one text. A money call completes within seconds of its claim and a round settles within
 * minutes of its bet, so nearly every row of a created_at range has its key within the margin after
 * its created_at; the few others ("late") are read from these indexes
 * (services/reporting/src/data/completionOrder.ts). Changing the margin takes a migration that
 * rebuilds the indexes with it.
 */
export const LATE_COMPLETION = {
  sql: `interval '5 minutes'`,
  ms: 5 * 60_000,
  /** timestamptz minus timestamptz is IMMUTABLE: usable in an index predicate. NULL (no key yet) is not late. */
  condition: (key: 'completed_at' | 'settled_at') => `${key} - created_at > interval '5 minutes' OR ${key} < created_at`,
} as const;

/**
 * The late rows of one studio and created_at range, as ledger_late_keys runs it: a PL/pgSQL function
 * is planned as what it declares (ROWS 10), where the planner would estimate the predicate, a
 * comparison of two columns' difference, at a third of the table.
 */
export const lateKeysQuery = (table: 'transactions' | 'rounds', key: 'completed_at' | 'settled_at') =>
  `SELECT p.group_id, p.created_at, p.id FROM ${table} p
    WHERE p.group_id = $1 AND (${LATE_COMPLETION.condition(key)})
      AND p.created_at >= coalesce($2, '-infinity'::timestamptz) AND p.created_at < coalesce($3, 'infinity'::timestamptz)`;

/** `text` as an SQL string literal. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

export const LATE_KEYS_FUNCTION_SQL = `
    CREATE OR REPLACE FUNCTION ledger_late_keys(parent text, studio text, lo timestamptz, hi timestamptz)
      RETURNS TABLE (group_id text, created_at timestamptz, id uuid)
      LANGUAGE plpgsql STABLE ROWS 10 AS $fn$
    BEGIN
      IF parent = 'transactions' THEN
        RETURN QUERY EXECUTE ${literal(lateKeysQuery('transactions', 'completed_at'))} USING studio, lo, hi;
      ELSIF parent = 'rounds' THEN
        RETURN QUERY EXECUTE ${literal(lateKeysQuery('rounds', 'settled_at'))} USING studio, lo, hi;
      ELSE
        RAISE EXCEPTION 'ledger_late_keys: unknown parent %', parent;
      END IF;
    END $fn$;
`;

export const REPORTING_INDEXES_SQL = `
  -- A studio's lists, newest first, and by player, game, round or transactionId.
  CREATE INDEX transactions_group_created ON transactions (group_id, created_at DESC, id);
  CREATE INDEX transactions_group_player_created ON transactions (group_id, player_id, created_at DESC);
  CREATE INDEX transactions_group_game_created ON transactions (group_id, game_id, created_at DESC);
  CREATE INDEX transactions_group_round ON transactions (group_id, round_id);
  CREATE INDEX transactions_group_txid ON transactions (group_id, transaction_id);
  CREATE INDEX rounds_group_created ON rounds (group_id, created_at DESC, id);
  CREATE INDEX rounds_group_player_created ON rounds (group_id, player_id, created_at DESC);
  CREATE INDEX rounds_group_game_created ON rounds (group_id, game_id, created_at DESC);
  CREATE INDEX rounds_group_opened ON rounds (group_id, opened_at DESC);
  CREATE INDEX rounds_group_round ON rounds (group_id, round_id);

  -- The sorts newest or largest first, empty values last, with the id tiebreaker.
  CREATE INDEX transactions_group_completed_nl ON transactions (group_id, completed_at DESC NULLS LAST, id);
  CREATE INDEX transactions_group_amount ON transactions (group_id, amount DESC, id) INCLUDE (created_at);
  CREATE INDEX rounds_group_settled_nl ON rounds (group_id, settled_at DESC NULLS LAST, id);

  -- A casino's rows in time order (the back office's searches are scoped by casino).
  CREATE INDEX transactions_provider_time ON transactions (provider_id, created_at DESC, id) INCLUDE (group_id);
  CREATE INDEX rounds_provider_time ON rounds (provider_id, created_at DESC, id) INCLUDE (group_id);

  -- The reconciliation's rows: failed transactions, open rounds, unsettled transactions, the credit
  -- that settles a bet, paid credits.
  CREATE INDEX transactions_failed ON transactions (created_at DESC, id) INCLUDE (group_id, amount) WHERE status = 'FAILED';
  CREATE INDEX rounds_open ON rounds (group_id, created_at DESC, id) INCLUDE (currency, bet_amount, payout_amount) WHERE status = 'OPEN';
  CREATE INDEX transactions_unsettled ON transactions (claimed_at) WHERE status <> 'SUCCESS';
  CREATE INDEX transactions_settling_credit ON transactions (provider_id, previous_transaction_id)
    WHERE category = 'CASH_IN' AND previous_transaction_id IS NOT NULL;
  CREATE INDEX transactions_paid_credits ON transactions (created_at DESC) WHERE category = 'CASH_IN' AND status = 'SUCCESS';

  -- The rows completed or settled far from their creation (LATE_COMPLETION): a row has an entry only
  -- while its key is late, so a money call that completes on time writes nothing here.
  CREATE INDEX transactions_late_completed ON transactions (group_id, created_at DESC, id) INCLUDE (completed_at)
    WHERE ${LATE_COMPLETION.condition('completed_at')};
  CREATE INDEX rounds_late_settled ON rounds (group_id, created_at DESC, id) INCLUDE (settled_at)
    WHERE ${LATE_COMPLETION.condition('settled_at')};
`;
