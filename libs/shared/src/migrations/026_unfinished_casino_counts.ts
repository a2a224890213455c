import type { Knex } from 'knex';

/**
 * The unfinished list counted per day, studio and casino alone (docs/ledger.md, "Exact totals"), next
 * to 024's counts by every key the list keeps. A total whose filter and grouping name nothing finer
 * than the studio and the casino (a studio's first page, its open rounds, its pending transactions,
 * a casino's) sums one row per day and casino instead of one per day and (casino, game, currency,
 * category): at 30M the largest studio's open rounds are listed under tens of thousands of such keys,
 * a number that grows with the stuck rows until every combination of every day has one.
 *
 * Kept by the same statement triggers as 024's counts (their functions now write both), in the
 * writer's own transaction; filled from the list under the same lock as 024.
 */
const KEY = 'parent, day, group_id, provider_id, game_id, currency, category';
const SAME_KEY = KEY.split(', ').map((c) => `c.${c} IS NOT DISTINCT FROM r.${c}`).join(' AND ');
const CASINO_KEY = 'parent, day, group_id, provider_id';
const SAME_CASINO_KEY = CASINO_KEY.split(', ').map((c) => `c.${c} IS NOT DISTINCT FROM r.${c}`).join(' AND ');

/** The trigger functions of 024, writing `tables` (the keys and their table names). */
function functions(withCasino: boolean): string {
  const add = (table: string, key: string) => `
      INSERT INTO ${table} AS c (${key}, n)
      SELECT ${key}, count(*) FROM added GROUP BY ${key}
      ON CONFLICT ON CONSTRAINT ${table}_key DO UPDATE SET n = c.n + excluded.n;`;
  const remove = (table: string, key: string, same: string) => `
      DELETE FROM ${table} c
       USING (SELECT ${key}, count(*) AS n FROM removed GROUP BY ${key}) r
       WHERE ${same} AND c.n = r.n;
      UPDATE ${table} c SET n = c.n - r.n
        FROM (SELECT ${key}, count(*) AS n FROM removed GROUP BY ${key}) r
       WHERE ${same};`;
  return `
    CREATE OR REPLACE FUNCTION ledger_rollup_unfinished_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN${add('ledger_rollup_unfinished_counts', KEY)}${withCasino ? add('ledger_rollup_unfinished_casino_counts', CASINO_KEY) : ''}
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION ledger_rollup_unfinished_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- A key whose rows all leave goes; the others lose what left.${remove('ledger_rollup_unfinished_counts', KEY, SAME_KEY)}${
        withCasino ? remove('ledger_rollup_unfinished_casino_counts', CASINO_KEY, SAME_CASINO_KEY) : ''}
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION ledger_rollup_unfinished_emptied() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      TRUNCATE ledger_rollup_unfinished_counts${withCasino ? ', ledger_rollup_unfinished_casino_counts' : ''};
      RETURN NULL;
    END $$;`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- No job writes the list while the counts start from it.
    LOCK TABLE ledger_rollup_unfinished IN SHARE ROW EXCLUSIVE MODE;

    CREATE TABLE ledger_rollup_unfinished_casino_counts (
      parent      text NOT NULL,
      day         date NOT NULL,
      group_id    text,
      provider_id text,
      n           bigint NOT NULL CHECK (n > 0),
      CONSTRAINT ledger_rollup_unfinished_casino_counts_key UNIQUE NULLS NOT DISTINCT (${CASINO_KEY})
    );
    CREATE INDEX ledger_rollup_unfinished_casino_counts_group ON ledger_rollup_unfinished_casino_counts (parent, group_id, day) INCLUDE (provider_id, n);
    ${functions(true)}

    INSERT INTO ledger_rollup_unfinished_casino_counts (${CASINO_KEY}, n)
    SELECT ${CASINO_KEY}, count(*) FROM ledger_rollup_unfinished GROUP BY ${CASINO_KEY};
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ${functions(false)}
    DROP TABLE IF EXISTS ledger_rollup_unfinished_casino_counts;
  `);
}
