import type { Knex } from 'knex';

/**
 * The daily rollups summed per day, studio, category and status (transactions) or per day, studio and
 * status (rounds) (docs/ledger.md, "Exact totals"). A total whose filter and grouping name nothing
 * finer (a studio's failed cash-ins, its cash-ins, its first page) reads a row per day instead of one
 * per day and (casino, game, currency) combination: at 30M the largest studio's failed cash-ins are
 * spread over 15,648 rollup rows (5,114 at 5M), a number that grows with the failures until every
 * combination of every day has one.
 *
 * Kept by statement triggers on the rollups (their transition tables: rows added, removed, updated
 * in place by a span's merge), in the writer's own transaction, whoever writes them (the job's counts
 * and recounts, the archiving's replacement of a month). The rollups are written by the job alone,
 * never by a money call. A key's row goes when its count reaches 0. The key leads with the studio: a
 * studio's total over any range reads its own rows only.
 */
export interface ByStatus {
  source: string;
  table: string;
  key: string;
  sums: string[];
  columns: string;
}

/** The two tables, by the money table their rollups count (ledger-totals reads their keys). */
export const ROLLUPS_BY_STATUS: Record<'transactions' | 'rounds', ByStatus> = {
  transactions: {
    source: 'ledger_rollup_transactions', table: 'ledger_rollup_transactions_by_status', key: 'group_id, day, category, status',
    sums: ['n', 'amount'], columns: 'day date NOT NULL, group_id text NOT NULL, category text NOT NULL, status text NOT NULL, n bigint NOT NULL, amount numeric NOT NULL',
  },
  rounds: {
    source: 'ledger_rollup_rounds', table: 'ledger_rollup_rounds_by_status', key: 'group_id, day, status',
    sums: ['n', 'bet_amount', 'payout_amount'], columns: 'day date NOT NULL, group_id text NOT NULL, status text NOT NULL, n bigint NOT NULL, bet_amount numeric NOT NULL, payout_amount numeric NOT NULL',
  },
};
const TABLES = Object.values(ROLLUPS_BY_STATUS);

/**
 * A table of a rollup's sums by a coarser key (`key`, a subset of the rollup's), its four statement
 * triggers on the rollup, and its rows summed from the rollup as it stands (the caller holds the
 * rollup locked against writes). Migration 030 makes more of them.
 */
export function coarseRollupTable({ source, table, key, sums, columns }: ByStatus): string {
  const same = key.split(', ').map((c) => `c.${c} = r.${c}`).join(' AND ');
  const summed = sums.map((s) => `sum(${s}) AS ${s}`).join(', ');
  const add = (rows: string) => `
      INSERT INTO ${table} AS c (${key}, ${sums.join(', ')})
      SELECT ${key}, ${summed} FROM ${rows} GROUP BY ${key}
      ON CONFLICT (${key}) DO UPDATE SET ${sums.map((s) => `${s} = c.${s} + excluded.${s}`).join(', ')};`;
  // Only the keys the statement touched: a trigger fires on every statement, rows or none.
  const remove = (rows: string) => `
      UPDATE ${table} c SET ${sums.map((s) => `${s} = c.${s} - r.${s}`).join(', ')}
        FROM (SELECT ${key}, ${summed} FROM ${rows} GROUP BY ${key}) r
       WHERE ${same};
      DELETE FROM ${table} c USING (SELECT DISTINCT ${key} FROM ${rows}) r WHERE ${same} AND c.n = 0;`;
  return `
    CREATE TABLE ${table} (${columns}, PRIMARY KEY (${key}));
    CREATE FUNCTION ${table}_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN${add('added')}
      RETURN NULL; END $$;
    CREATE FUNCTION ${table}_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN${remove('removed')}
      RETURN NULL; END $$;
    -- An update in place (a span's merge adds to a key's sums): the old values leave, the new come.
    CREATE FUNCTION ${table}_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN${remove('removed')}${add('added')}
      RETURN NULL; END $$;
    CREATE FUNCTION ${table}_emptied() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      TRUNCATE ${table}; RETURN NULL; END $$;
    CREATE TRIGGER ${table}_added AFTER INSERT ON ${source}
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ${table}_added();
    CREATE TRIGGER ${table}_removed AFTER DELETE ON ${source}
      REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ${table}_removed();
    CREATE TRIGGER ${table}_updated AFTER UPDATE ON ${source}
      REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ${table}_updated();
    CREATE TRIGGER ${table}_emptied AFTER TRUNCATE ON ${source}
      FOR EACH STATEMENT EXECUTE FUNCTION ${table}_emptied();
    INSERT INTO ${table} (${key}, ${sums.join(', ')}) SELECT ${key}, ${summed} FROM ${source} GROUP BY ${key};`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- No job writes the rollups while the sums start from them.
    LOCK TABLE ledger_rollup_transactions, ledger_rollup_rounds IN SHARE ROW EXCLUSIVE MODE;
    ${TABLES.map(coarseRollupTable).join('\n')}
  `);
}

/** Drops what coarseRollupTable made. */
export function dropCoarseRollupTable({ source, table }: ByStatus): string {
  return `
      DROP TRIGGER IF EXISTS ${table}_added ON ${source};
      DROP TRIGGER IF EXISTS ${table}_removed ON ${source};
      DROP TRIGGER IF EXISTS ${table}_updated ON ${source};
      DROP TRIGGER IF EXISTS ${table}_emptied ON ${source};
      DROP FUNCTION IF EXISTS ${table}_added(), ${table}_removed(), ${table}_updated(), ${table}_emptied();
      DROP TABLE IF EXISTS ${table};`;
}

export async function down(knex: Knex): Promise<void> {
  for (const t of TABLES) await knex.raw(dropCoarseRollupTable(t));
}
