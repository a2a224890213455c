/**
 * Exact totals by counting, on the reporting database only (docs/ledger.md, "Exact totals").
 *
 * Every change of the ledger reaches the reporting database as a row change applied by one worker,
 * so a row trigger keeps the counts in the same transaction as the row: they are exact at every
 * snapshot of that database, today included, and nothing is recounted.
 *
 * Three tables, one row per UTC day (of created_at) and key:
 * - ledger_counts_transactions: number and amount sum per casino, studio, game, currency, category, status;
 * - ledger_counts_rounds: number, bet and payout sums per casino, studio, game, currency, status;
 * - ledger_counts_players: the successful cash-outs of each player, per casino, studio, game and
 *   currency (the reports' distinct players; a row at 0 is a player whose cash-outs all moved away).
 * A row change removes the old row's contribution and adds the new one's (an UPDATE trigger fires only
 * when a counted column changed: most updates are the wallet's bookkeeping). A dropped partition
 * (retention) fires no trigger: the counts of its days stay, which the reports want; the lists count
 * from ledger_retained's day on (see the retention job).
 *
 * The triggers are ENABLE ALWAYS: the apply worker runs with session_replication_role = replica.
 * A new subscription's first copy runs with them off, and the counts are rebuilt once every ledger
 * table is copied (armCounts): a table's copy is one transaction, in which a row trigger's upserts
 * of the same count row pile up versions that nothing can prune until it commits (at 5M
 * transactions: count tables 30 times their size, and minutes of the copy spent walking them).
 * ledger_counts_rebuild() recounts everything from the rows in one statement (a bulk load with the
 * triggers disabled, then a recount).
 */

/** The triggers that keep the counts, per ledger table (a bulk load disables them, then rebuilds). */
export const COUNT_TRIGGERS: Record<'transactions' | 'rounds', readonly string[]> = {
  transactions: ['transactions_counted', 'transactions_recounted', 'transactions_emptied'],
  rounds: ['rounds_counted', 'rounds_recounted', 'rounds_emptied'],
};

/** Statements that switch the count triggers off (a bulk load) or back on, ALWAYS (the apply worker fires them). */
export const countTriggersSql = (on: boolean) => Object.entries(COUNT_TRIGGERS)
  .flatMap(([table, triggers]) => triggers.map((t) => `ALTER TABLE ${table} ${on ? 'ENABLE ALWAYS' : 'DISABLE'} TRIGGER ${t};`)).join('\n');

/** The UTC day of a ledger row. */
const DAY = (row: string) => `(${row}.created_at AT TIME ZONE 'UTC')::date`;

const TRANSACTION_KEY = ['provider_id', 'day', 'group_id', 'game_id', 'currency', 'category', 'status'];
const ROUND_KEY = ['provider_id', 'day', 'group_id', 'game_id', 'currency', 'status'];
const PLAYER_KEY = ['provider_id', 'day', 'group_id', 'game_id', 'currency', 'player_id'];

/** `col = ROW.col AND ...` for a key, the day computed from the row. */
const matches = (key: string[], row: string) => key.map((c) => (c === 'day' ? `day = ${DAY(row)}` : `${c} = ${row}.${c}`)).join(' AND ');
const values = (key: string[], row: string) => key.map((c) => (c === 'day' ? DAY(row) : `${row}.${c}`)).join(', ');
/** The UPDATE trigger's condition: a column the counts depend on changed. */
const changed = (columns: string[]) => columns.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(' OR ');

/** The count tables and ledger_retained. */
export const COUNT_TABLES_SQL = `
  CREATE TABLE ledger_counts_transactions (
    provider_id text NOT NULL, day date NOT NULL, group_id text NOT NULL, game_id integer NOT NULL,
    currency text NOT NULL, category text NOT NULL, status text NOT NULL,
    n bigint NOT NULL, amount numeric NOT NULL,
    PRIMARY KEY (${TRANSACTION_KEY.join(', ')})
  );
  CREATE INDEX ledger_counts_transactions_studio ON ledger_counts_transactions (group_id, day);
  CREATE TABLE ledger_counts_rounds (
    provider_id text NOT NULL, day date NOT NULL, group_id text NOT NULL, game_id integer NOT NULL,
    currency text NOT NULL, status text NOT NULL,
    n bigint NOT NULL, bet_amount numeric NOT NULL, payout_amount numeric NOT NULL,
    PRIMARY KEY (${ROUND_KEY.join(', ')})
  );
  CREATE INDEX ledger_counts_rounds_studio ON ledger_counts_rounds (group_id, day);
  CREATE TABLE ledger_counts_players (
    provider_id text NOT NULL, day date NOT NULL, group_id text NOT NULL, game_id integer NOT NULL,
    currency text NOT NULL, player_id text NOT NULL, n bigint NOT NULL,
    PRIMARY KEY (${PLAYER_KEY.join(', ')})
  );
  CREATE INDEX ledger_counts_players_studio ON ledger_counts_players (group_id, day);
  -- The first day whose rows the lists still hold, per ledger table (the retention job's).
  CREATE TABLE ledger_retained (ledger text PRIMARY KEY, since date NOT NULL);
`;

/** The functions the triggers run, and the rebuild (CREATE OR REPLACE: a later release replaces them in place). */
export const COUNT_FUNCTIONS_SQL = `
  -- The apply worker runs with an empty search_path: the functions name their own.
  CREATE OR REPLACE FUNCTION ledger_count_transaction() RETURNS trigger LANGUAGE plpgsql SET search_path = public AS $$
  BEGIN
    IF TG_OP <> 'INSERT' THEN
      UPDATE ledger_counts_transactions SET n = n - 1, amount = amount - OLD.amount WHERE ${matches(TRANSACTION_KEY, 'OLD')};
      IF OLD.category = 'CASH_OUT' AND OLD.status = 'SUCCESS' THEN
        UPDATE ledger_counts_players SET n = n - 1 WHERE ${matches(PLAYER_KEY, 'OLD')};
      END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
      INSERT INTO ledger_counts_transactions AS c VALUES (${values(TRANSACTION_KEY, 'NEW')}, 1, NEW.amount)
        ON CONFLICT (${TRANSACTION_KEY.join(', ')}) DO UPDATE SET n = c.n + 1, amount = c.amount + EXCLUDED.amount;
      IF NEW.category = 'CASH_OUT' AND NEW.status = 'SUCCESS' THEN
        INSERT INTO ledger_counts_players AS c VALUES (${values(PLAYER_KEY, 'NEW')}, 1)
          ON CONFLICT (${PLAYER_KEY.join(', ')}) DO UPDATE SET n = c.n + 1;
      END IF;
    END IF;
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION ledger_count_round() RETURNS trigger LANGUAGE plpgsql SET search_path = public AS $$
  BEGIN
    IF TG_OP <> 'INSERT' THEN
      UPDATE ledger_counts_rounds SET n = n - 1, bet_amount = bet_amount - OLD.bet_amount,
             payout_amount = payout_amount - coalesce(OLD.payout_amount, 0)
       WHERE ${matches(ROUND_KEY, 'OLD')};
    END IF;
    IF TG_OP <> 'DELETE' THEN
      INSERT INTO ledger_counts_rounds AS c VALUES (${values(ROUND_KEY, 'NEW')}, 1, NEW.bet_amount, coalesce(NEW.payout_amount, 0))
        ON CONFLICT (${ROUND_KEY.join(', ')}) DO UPDATE
          SET n = c.n + 1, bet_amount = c.bet_amount + EXCLUDED.bet_amount, payout_amount = c.payout_amount + EXCLUDED.payout_amount;
    END IF;
    RETURN NULL;
  END $$;
  -- A TRUNCATE of the ledger empties the counts of the days the ledger held; the days before
  -- ledger_retained (months retention dropped) are kept: their counts are all the reports have.
  CREATE OR REPLACE FUNCTION ledger_counts_forget() RETURNS trigger LANGUAGE plpgsql SET search_path = public AS $$
  DECLARE
    kept date := coalesce((SELECT since FROM ledger_retained WHERE ledger = TG_TABLE_NAME), '-infinity');
  BEGIN
    IF TG_TABLE_NAME = 'transactions' THEN
      DELETE FROM ledger_counts_transactions WHERE day >= kept;
      DELETE FROM ledger_counts_players WHERE day >= kept;
    ELSE
      DELETE FROM ledger_counts_rounds WHERE day >= kept;
    END IF;
    RETURN NULL;
  END $$;

  -- Everything the rows still hold recounted from them, in one statement each (a repair, or after a
  -- bulk load with the triggers disabled). The days before ledger_retained (months retention dropped)
  -- keep their counts: their rows are gone, and the counts are all the reports have of them. Holds the
  -- ledger against writes meanwhile (the apply worker waits: minutes at 30M transactions).
  CREATE OR REPLACE FUNCTION ledger_counts_rebuild() RETURNS void LANGUAGE plpgsql SET search_path = public AS $$
  DECLARE
    kept_tx date := coalesce((SELECT since FROM ledger_retained WHERE ledger = 'transactions'), '-infinity');
    kept_rounds date := coalesce((SELECT since FROM ledger_retained WHERE ledger = 'rounds'), '-infinity');
  BEGIN
    LOCK TABLE transactions, rounds IN SHARE MODE;
    DELETE FROM ledger_counts_transactions WHERE day >= kept_tx;
    DELETE FROM ledger_counts_rounds WHERE day >= kept_rounds;
    DELETE FROM ledger_counts_players WHERE day >= kept_tx;
    INSERT INTO ledger_counts_transactions
      SELECT ${values(TRANSACTION_KEY, 't')}, count(*), sum(t.amount) FROM transactions t WHERE ${DAY('t')} >= kept_tx
       GROUP BY ${TRANSACTION_KEY.map((_, i) => i + 1).join(', ')};
    INSERT INTO ledger_counts_rounds
      SELECT ${values(ROUND_KEY, 'r')}, count(*), sum(r.bet_amount), coalesce(sum(r.payout_amount), 0) FROM rounds r WHERE ${DAY('r')} >= kept_rounds
       GROUP BY ${ROUND_KEY.map((_, i) => i + 1).join(', ')};
    INSERT INTO ledger_counts_players
      SELECT ${values(PLAYER_KEY, 't')}, count(*) FROM transactions t
       WHERE t.category = 'CASH_OUT' AND t.status = 'SUCCESS' AND ${DAY('t')} >= kept_tx
       GROUP BY ${PLAYER_KEY.map((_, i) => i + 1).join(', ')};
  END $$;
`;

/** The triggers on the ledger tables, enabled ALWAYS. */
export const COUNT_TRIGGERS_SQL = `
  CREATE TRIGGER transactions_counted AFTER INSERT OR DELETE ON transactions FOR EACH ROW EXECUTE FUNCTION ledger_count_transaction();
  CREATE TRIGGER transactions_recounted AFTER UPDATE ON transactions FOR EACH ROW
    WHEN (${changed(['provider_id', 'created_at', 'group_id', 'game_id', 'currency', 'category', 'status', 'amount', 'player_id'])})
    EXECUTE FUNCTION ledger_count_transaction();
  CREATE TRIGGER transactions_emptied AFTER TRUNCATE ON transactions FOR EACH STATEMENT EXECUTE FUNCTION ledger_counts_forget();
  CREATE TRIGGER rounds_counted AFTER INSERT OR DELETE ON rounds FOR EACH ROW EXECUTE FUNCTION ledger_count_round();
  CREATE TRIGGER rounds_recounted AFTER UPDATE ON rounds FOR EACH ROW
    WHEN (${changed(['provider_id', 'created_at', 'group_id', 'game_id', 'currency', 'status', 'bet_amount', 'payout_amount'])})
    EXECUTE FUNCTION ledger_count_round();
  CREATE TRIGGER rounds_emptied AFTER TRUNCATE ON rounds FOR EACH STATEMENT EXECUTE FUNCTION ledger_counts_forget();
  ${countTriggersSql(true)}
`;

/** Everything of the counts, for a new reporting database. */
export const COUNTS_SQL = [COUNT_TABLES_SQL, COUNT_FUNCTIONS_SQL, COUNT_TRIGGERS_SQL].join('\n');
