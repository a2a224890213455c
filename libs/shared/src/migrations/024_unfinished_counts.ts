import type { Knex } from 'knex';

/**
 * The unfinished list counted by key (docs/ledger.md, "Exact totals"): per parent, day and (studio,
 * casino, game, currency, category), how many rows the list holds. A total whose filter names no
 * status only needs how many listed rows match (their status and sums are not asked), and read
 * them one by one from the list: at 30M, 75,000 listed rounds of the largest studio, the part of a
 * studio's first page that grows with the ledger's stuck rows (the benchmark keeps 1 % of rounds
 * open for good). The counts hold one row per day and key instead.
 *
 * Kept by statement triggers on the list (its transition tables), so every writer keeps them exact
 * in its own transaction: the rollup job's counts and recounts, the archiving's replacement of a
 * month, anything to come. The list is written by the job alone, never by a money call: the
 * triggers cost the money path nothing. A key's row goes when its count reaches 0. Keys keep the
 * list's NULLs (rows listed before 013 whose table row has left): the key is unique NULLS NOT DISTINCT.
 */
const KEY = 'parent, day, group_id, provider_id, game_id, currency, category';
const SAME_KEY = KEY.split(', ').map((c) => `c.${c} IS NOT DISTINCT FROM r.${c}`).join(' AND ');

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- No job writes the list while the counts start from it.
    LOCK TABLE ledger_rollup_unfinished IN SHARE ROW EXCLUSIVE MODE;

    CREATE TABLE ledger_rollup_unfinished_counts (
      parent      text NOT NULL,
      day         date NOT NULL,
      group_id    text,
      provider_id text,
      game_id     integer,
      currency    text,
      category    text,
      n           bigint NOT NULL CHECK (n > 0),
      CONSTRAINT ledger_rollup_unfinished_counts_key UNIQUE NULLS NOT DISTINCT (${KEY})
    );
    CREATE INDEX ledger_rollup_unfinished_counts_group ON ledger_rollup_unfinished_counts (parent, group_id, day) INCLUDE (provider_id, game_id, currency, category, n);

    CREATE FUNCTION ledger_rollup_unfinished_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ledger_rollup_unfinished_counts AS c (${KEY}, n)
      SELECT ${KEY}, count(*) FROM added GROUP BY ${KEY}
      ON CONFLICT ON CONSTRAINT ledger_rollup_unfinished_counts_key DO UPDATE SET n = c.n + excluded.n;
      RETURN NULL;
    END $$;

    CREATE FUNCTION ledger_rollup_unfinished_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- A key whose rows all leave goes; the others lose what left.
      DELETE FROM ledger_rollup_unfinished_counts c
       USING (SELECT ${KEY}, count(*) AS n FROM removed GROUP BY ${KEY}) r
       WHERE ${SAME_KEY} AND c.n = r.n;
      UPDATE ledger_rollup_unfinished_counts c SET n = c.n - r.n
        FROM (SELECT ${KEY}, count(*) AS n FROM removed GROUP BY ${KEY}) r
       WHERE ${SAME_KEY};
      RETURN NULL;
    END $$;

    CREATE FUNCTION ledger_rollup_unfinished_emptied() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      TRUNCATE ledger_rollup_unfinished_counts;
      RETURN NULL;
    END $$;

    CREATE TRIGGER ledger_rollup_unfinished_added AFTER INSERT ON ledger_rollup_unfinished
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ledger_rollup_unfinished_added();
    CREATE TRIGGER ledger_rollup_unfinished_removed AFTER DELETE ON ledger_rollup_unfinished
      REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ledger_rollup_unfinished_removed();
    -- An update (none today) is a removal then an addition.
    CREATE TRIGGER ledger_rollup_unfinished_updated_old AFTER UPDATE ON ledger_rollup_unfinished
      REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ledger_rollup_unfinished_removed();
    CREATE TRIGGER ledger_rollup_unfinished_updated_new AFTER UPDATE ON ledger_rollup_unfinished
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ledger_rollup_unfinished_added();
    CREATE TRIGGER ledger_rollup_unfinished_emptied AFTER TRUNCATE ON ledger_rollup_unfinished
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_rollup_unfinished_emptied();

    INSERT INTO ledger_rollup_unfinished_counts (${KEY}, n)
    SELECT ${KEY}, count(*) FROM ledger_rollup_unfinished GROUP BY ${KEY};
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS ledger_rollup_unfinished_added ON ledger_rollup_unfinished;
    DROP TRIGGER IF EXISTS ledger_rollup_unfinished_removed ON ledger_rollup_unfinished;
    DROP TRIGGER IF EXISTS ledger_rollup_unfinished_updated_old ON ledger_rollup_unfinished;
    DROP TRIGGER IF EXISTS ledger_rollup_unfinished_updated_new ON ledger_rollup_unfinished;
    DROP TRIGGER IF EXISTS ledger_rollup_unfinished_emptied ON ledger_rollup_unfinished;
    DROP FUNCTION IF EXISTS ledger_rollup_unfinished_added(), ledger_rollup_unfinished_removed(), ledger_rollup_unfinished_emptied();
    DROP TABLE IF EXISTS ledger_rollup_unfinished_counts;
  `);
}
