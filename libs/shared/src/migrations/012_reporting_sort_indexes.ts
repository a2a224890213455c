import type { Knex } from 'knex';
import { createIndexes, dropIndexes, type PartitionedIndex } from './partitioned-index';

/**
 * Indexes in the order the reporting and back-office lists sort (issue 17), so that a sort's first
 * page reads one page of index entries instead of every row of the caller's history:
 *
 * - settledAt and completedAt sort newest first with empty values last (`DESC NULLS LAST`, with the
 *   id tiebreaker). The indexes of 001 were `DESC`, which puts empty values first, so no plan could
 *   use them for that order: the whole history was read and sorted (8.8 s at 30M transactions).
 *   They are replaced, not added to: a money call pays for the same number of index entries.
 * - amount (transactions), largest first, is new: the one sort that had no index at all. It carries
 *   created_at so that a from/to range is checked inside the index (an index-only scan over the
 *   partitions of the range) before any row is read.
 *
 * The ledger is partitioned by month and may be large when this runs: each index is created on the
 * parent alone (invalid, nothing locked for long), built CONCURRENTLY on each partition (money calls
 * keep writing), then attached; the parent's index becomes valid when its last partition attaches.
 * Runs outside a transaction (CONCURRENTLY cannot run in one); every step is idempotent, so a run
 * interrupted part way is finished by running it again.
 */
export const config = { transaction: false };

const INDEXES: PartitionedIndex[] = [
  {
    table: 'transactions',
    name: 'transactions_group_completed_nl',
    suffix: 'group_completed_nl',
    definition: '(group_id, completed_at DESC NULLS LAST, id)',
    replaces: { name: 'transactions_group_completed', definition: '(group_id, completed_at DESC)' },
  },
  {
    table: 'transactions',
    name: 'transactions_group_amount',
    suffix: 'group_amount',
    definition: '(group_id, amount DESC, id) INCLUDE (created_at)',
  },
  {
    table: 'rounds',
    name: 'rounds_group_settled_nl',
    suffix: 'group_settled_nl',
    definition: '(group_id, settled_at DESC NULLS LAST, id)',
    replaces: { name: 'rounds_group_settled', definition: '(group_id, settled_at DESC)' },
  },
];

export async function up(knex: Knex): Promise<void> {
  await createIndexes(knex, INDEXES);
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexes(knex, INDEXES);
}
