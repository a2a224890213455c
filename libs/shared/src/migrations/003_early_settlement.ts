import type { Knex } from 'knex';

/**
 * A credit that settles a bet can succeed before the bet does: it arrives while the debit is still
 * waiting on the casino, or it refunds a FAILED or abandoned debit that the game then repeats with
 * success. It finds no round to settle, so it records itself on the bet's transaction
 * (`settled_by`, reached by the bet's unique key), and the debit's outcome statement, which
 * updates that row anyway, opens the round already SETTLED by it instead of OPEN. No index: the
 * column is only ever read from the row being updated. Adding a nullable column without a default
 * rewrites nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    SET LOCAL lock_timeout = '5s';
    ALTER TABLE transactions ADD COLUMN settled_by uuid;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE transactions DROP COLUMN settled_by');
}
