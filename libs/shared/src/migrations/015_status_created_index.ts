import type { Knex } from 'knex';
import { createIndexes, dropIndexes, type PartitionedIndex } from './partitioned-index';

/**
 * A status filter's first page in time order, whatever the category (issue 17: "pending older than
 * five minutes" at 30M transactions). 001's (group_id, status, category, created_at DESC) orders by
 * time only within one category, so a filter on the status alone could not read it in order: the
 * planner walked every unsettled row of the ledger and sorted them (315 ms at 30M). The replacement
 * puts created_at right after the status and carries the category, which a status-and-category
 * filter (failed cash-ins) then checks inside the index. Built partition by partition, CONCURRENTLY.
 */
export const config = { transaction: false };

const INDEXES: PartitionedIndex[] = [
  {
    table: 'transactions',
    name: 'transactions_group_status_time',
    suffix: 'group_status_time',
    definition: '(group_id, status, created_at DESC, id) INCLUDE (category)',
    replaces: { name: 'transactions_group_status_created', definition: '(group_id, status, category, created_at DESC)' },
  },
];

export async function up(knex: Knex): Promise<void> {
  await createIndexes(knex, INDEXES);
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexes(knex, INDEXES);
}
