import type { Knex } from 'knex';

/**
 * The rows of a counted day that were unfinished when counted (PENDING transactions, OPEN rounds)
 * are read live by every total that covers their day (libs/shared ledger-totals). With only their
 * keys listed, a total had to look up every one of them in the ledger before it could tell whether
 * the row belonged to the caller's filter: at 5M transactions, 37k lookups for a studio's total
 * that matches a few thousand (0.5 s, growing with the ledger). The filter columns other than the
 * status (studio, casino, game, currency, category) are now listed with the key, so a total looks up
 * only the unfinished rows of its own filter; their status and sums, which change as they finish,
 * are still read live. Only a takeover rewrites those columns, and a takeover marks its day stale
 * (009): a stale day is read wholly live, and its recount lists the rows again as they are then.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_rollup_unfinished
      ADD COLUMN group_id text, ADD COLUMN provider_id text, ADD COLUMN game_id integer, ADD COLUMN currency text, ADD COLUMN category text;
    UPDATE ledger_rollup_unfinished u
       SET group_id = t.group_id, provider_id = t.provider_id, game_id = t.game_id, currency = t.currency, category = t.category
      FROM transactions t WHERE u.parent = 'transactions' AND t.id = u.id AND t.created_at = u.created_at;
    UPDATE ledger_rollup_unfinished u
       SET group_id = r.group_id, provider_id = r.provider_id, game_id = r.game_id, currency = r.currency
      FROM rounds r WHERE u.parent = 'rounds' AND r.id = u.id AND r.created_at = u.created_at;
    CREATE INDEX ledger_rollup_unfinished_group ON ledger_rollup_unfinished (parent, group_id, day);
    CREATE INDEX ledger_rollup_unfinished_provider ON ledger_rollup_unfinished (parent, provider_id, day);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS ledger_rollup_unfinished_group, ledger_rollup_unfinished_provider;
    ALTER TABLE ledger_rollup_unfinished DROP COLUMN group_id, DROP COLUMN provider_id, DROP COLUMN game_id, DROP COLUMN currency, DROP COLUMN category;
  `);
}
