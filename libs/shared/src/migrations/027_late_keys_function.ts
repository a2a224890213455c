import type { Knex } from 'knex';
import { LATE_COMPLETION } from './021_late_completion_indexes';

/**
 * The late rows of one studio and created_at range (021's partial indexes), as a function the planner
 * cannot see into (docs/ledger.md, "Which listed rows finished since").
 *
 * A total reads them to find the listed rows that finished since the job listed them (migration 025).
 * They are few by nature, but the planner cannot know it: it estimates 021's predicate, a comparison
 * of two columns' difference, at a third of the table, so a month's report at 5M expected 4.7M rows
 * where 26,000 came, and chose sorts sized for them over its whole aggregation. A PL/pgSQL function
 * is planned as what it declares (ROWS 10), and runs its own query, with the predicate written as
 * the index has it, through the index.
 */
export const lateKeysQuery = (table: 'transactions' | 'rounds', key: 'completed_at' | 'settled_at') =>
  `SELECT p.group_id, p.created_at, p.id FROM ${table} p
    WHERE p.group_id = $1 AND (${LATE_COMPLETION.condition(key)})
      AND p.created_at >= coalesce($2, '-infinity'::timestamptz) AND p.created_at < coalesce($3, 'infinity'::timestamptz)`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION ledger_late_keys(parent text, studio text, lo timestamptz, hi timestamptz)
      RETURNS TABLE (group_id text, created_at timestamptz, id uuid)
      LANGUAGE plpgsql STABLE ROWS 10 AS $fn$
    BEGIN
      IF parent = 'transactions' THEN
        RETURN QUERY EXECUTE ${knex.raw('?', [lateKeysQuery('transactions', 'completed_at')]).toQuery()} USING studio, lo, hi;
      ELSIF parent = 'rounds' THEN
        RETURN QUERY EXECUTE ${knex.raw('?', [lateKeysQuery('rounds', 'settled_at')]).toQuery()} USING studio, lo, hi;
      ELSE
        RAISE EXCEPTION 'ledger_late_keys: unknown parent %', parent;
      END IF;
    END $fn$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS ledger_late_keys(text, text, timestamptz, timestamptz)');
}
