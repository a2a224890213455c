/**
 * The statement-trigger functions that keep the unfinished list's counts (migrations 024, 026, 028):
 * each counts table holds, per key of its own (a subset of the list's columns), how many rows the
 * list holds; every writer of the list keeps all of them exact in its own transaction. A migration
 * that adds a counts table replaces the functions with ones that write every table so far.
 */
export interface CountsTable {
  table: string;
  /** The list's columns it counts by, comma-separated; its unique constraint is `${table}_key` on them. */
  key: string;
}

export const FINE_COUNTS: CountsTable = { table: 'ledger_rollup_unfinished_counts', key: 'parent, day, group_id, provider_id, game_id, currency, category' };
export const CASINO_COUNTS: CountsTable = { table: 'ledger_rollup_unfinished_casino_counts', key: 'parent, day, group_id, provider_id' };
export const CURRENCY_COUNTS: CountsTable = { table: 'ledger_rollup_unfinished_currency_counts', key: 'parent, day, group_id, currency, category' };
export const CASINO_CURRENCY_COUNTS: CountsTable = { table: 'ledger_rollup_unfinished_casino_currency_counts', key: 'parent, day, provider_id, currency, category' };

const same = (key: string) => key.split(', ').map((c) => `c.${c} IS NOT DISTINCT FROM r.${c}`).join(' AND ');

export function countTriggerFunctions(tables: readonly CountsTable[]): string {
  const add = ({ table, key }: CountsTable) => `
      INSERT INTO ${table} AS c (${key}, n)
      SELECT ${key}, count(*) FROM added GROUP BY ${key}
      ON CONFLICT ON CONSTRAINT ${table}_key DO UPDATE SET n = c.n + excluded.n;`;
  const remove = ({ table, key }: CountsTable) => `
      DELETE FROM ${table} c
       USING (SELECT ${key}, count(*) AS n FROM removed GROUP BY ${key}) r
       WHERE ${same(key)} AND c.n = r.n;
      UPDATE ${table} c SET n = c.n - r.n
        FROM (SELECT ${key}, count(*) AS n FROM removed GROUP BY ${key}) r
       WHERE ${same(key)};`;
  return `
    CREATE OR REPLACE FUNCTION ledger_rollup_unfinished_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN${tables.map(add).join('')}
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION ledger_rollup_unfinished_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- A key whose rows all leave goes; the others lose what left.${tables.map(remove).join('')}
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION ledger_rollup_unfinished_emptied() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      TRUNCATE ${tables.map((t) => t.table).join(', ')};
      RETURN NULL;
    END $$;`;
}

/**
 * A counts table, its index by `lead` (the studio, or the casino of a table without studio) and day,
 * and its rows counted from the list as it stands.
 */
export function createCountsTable({ table, key }: CountsTable, columns: string, lead = 'group_id'): string {
  const suffix = lead === 'group_id' ? 'group' : lead.replace(/_id$/, '');
  return `
    CREATE TABLE ${table} (
      ${columns},
      n bigint NOT NULL CHECK (n > 0),
      CONSTRAINT ${table}_key UNIQUE NULLS NOT DISTINCT (${key})
    );
    CREATE INDEX ${table}_${suffix} ON ${table} (parent, ${lead}, day) INCLUDE (${key.split(', ').filter((c) => !['parent', lead, 'day'].includes(c)).join(', ')}, n);
    INSERT INTO ${table} (${key}, n) SELECT ${key}, count(*) FROM ledger_rollup_unfinished GROUP BY ${key};`;
}
