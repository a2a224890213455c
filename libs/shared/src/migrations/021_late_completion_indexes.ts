import type { Knex } from 'knex';
import { createIndexes, dropIndexes, type PartitionedIndex } from './partitioned-index';

/**
 * The rows whose completedAt (transactions) or settledAt (rounds) is far from their createdAt
 * (issue 17: a from/to range sorted by completedAt or settledAt, in time that depends on the page).
 * A money call completes within seconds of its claim and a round settles within minutes of its bet,
 * so nearly every row of a created_at range has its key within LATE_COMPLETION.sql after its
 * created_at: reporting reads those in order from 012's key index, bounded to the range plus that
 * margin, and the few others ("late": completed much later, after a takeover, or before they were
 * created, by a clock step or a credit that settled its bet early) from these indexes
 * (services/reporting/src/data/completionOrder.ts says why the merge is exact).
 *
 * A row has an entry only while its key is late, so a money call that completes on time writes
 * nothing here (nor does a claim: its key is NULL). Built partition by partition, CONCURRENTLY.
 */
export const config = { transaction: false };

/**
 * The margin and the predicate, shared with the reporting queries: the planner uses a partial index
 * only for a query that repeats its predicate, so both are written from this one text. Changing the
 * margin takes a new migration that rebuilds the indexes with it.
 */
export const LATE_COMPLETION = {
  sql: `interval '5 minutes'`,
  ms: 5 * 60_000,
  /** timestamptz minus timestamptz is IMMUTABLE: usable in an index predicate. NULL (no key yet) is not late. */
  condition: (key: 'completed_at' | 'settled_at') => `${key} - created_at > interval '5 minutes' OR ${key} < created_at`,
} as const;

const INDEXES: PartitionedIndex[] = [
  {
    table: 'transactions',
    name: 'transactions_late_completed',
    suffix: 'late_completed',
    definition: `(group_id, created_at DESC, id) INCLUDE (completed_at) WHERE ${LATE_COMPLETION.condition('completed_at')}`,
  },
  {
    table: 'rounds',
    name: 'rounds_late_settled',
    suffix: 'late_settled',
    definition: `(group_id, created_at DESC, id) INCLUDE (settled_at) WHERE ${LATE_COMPLETION.condition('settled_at')}`,
  },
];

export async function up(knex: Knex): Promise<void> {
  await createIndexes(knex, INDEXES);
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexes(knex, INDEXES);
}
