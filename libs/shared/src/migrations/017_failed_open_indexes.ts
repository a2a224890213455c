import type { Knex } from 'knex';
import { createIndexes, dropIndexes, type PartitionedIndex } from './partitioned-index';

/**
 * The two back-office searches of issue 19 that read the unfinished rows of the ledger (docs/ledger.md
 * "Exact totals"), made to read index entries instead of one table row per unfinished row:
 *
 * - Failed transactions, `(created_at DESC, id) INCLUDE (group_id, amount) WHERE status = 'FAILED'`:
 *   a total filtered on FAILED looks up which of the rows still unfinished when their day was counted
 *   (ledger_rollup_unfinished) have failed since. Without it the planner read every unsettled row of
 *   the range through 007's (claimed_at) WHERE status <> 'SUCCESS' and each one's table row to see its
 *   status (at 30M, 150,000 rows: 1.1 s for the platform's failed cash-ins); with it, the failed rows
 *   are one index-only scan, hash-joined with the list by key, their amount in the index. The platform's
 *   newest failed transactions (the page) are the first entries of the same index. Only a failed row
 *   has an entry: a money call that succeeds writes nothing to it.
 * - Open rounds, `(group_id, created_at DESC, id) INCLUDE (currency, bet_amount, payout_amount)
 *   WHERE status = 'OPEN'`, replacing 001's (group_id, status, created_at DESC): a studio's open rounds
 *   were counted with one table read per round (75,000 at 30M: 285 ms); now one index-only scan. The
 *   old index had an entry for every round, twice (a round is written OPEN, then SETTLED, and an update
 *   of an indexed column writes every index again); this one has one, written when the round opens
 *   (a round settled at once has none), and holds only the open rounds once vacuumed. A SETTLED filter
 *   is nearly every round of the studio: its page reads (group_id, created_at DESC, id) in order.
 * - Rollup rows by status, `ledger_rollup_transactions (status, category, day) INCLUDE (currency, n,
 *   amount)`: a total of one status across every studio and casino (the platform's failed cash-ins)
 *   read each counted day's whole rollup through the primary key, which leads with the day and then the
 *   studio, and each matching rollup row from the table. Written by the rollup job alone, never by a
 *   money call.
 *
 * The ledger's indexes are built partition by partition, CONCURRENTLY (see partitioned-index); the
 * rollup's CONCURRENTLY too (the job keeps counting), rebuilt if an interrupted run left it invalid.
 */
export const config = { transaction: false };

const INDEXES: PartitionedIndex[] = [
  {
    table: 'transactions',
    name: 'transactions_failed',
    suffix: 'failed',
    definition: `(created_at DESC, id) INCLUDE (group_id, amount) WHERE status = 'FAILED'`,
  },
  {
    table: 'rounds',
    name: 'rounds_open',
    suffix: 'open',
    definition: `(group_id, created_at DESC, id) INCLUDE (currency, bet_amount, payout_amount) WHERE status = 'OPEN'`,
    replaces: { name: 'rounds_group_status_created', definition: '(group_id, status, created_at DESC)' },
  },
];

const ROLLUP_STATUS = 'ledger_rollup_transactions_status';

export async function up(knex: Knex): Promise<void> {
  await createIndexes(knex, INDEXES);
  const { rows } = await knex.raw<{ rows: { valid: boolean }[] }>(
    `SELECT x.indisvalid AS valid FROM pg_class c JOIN pg_index x ON x.indexrelid = c.oid WHERE c.relname = ?`,
    [ROLLUP_STATUS],
  );
  if (rows[0] && !rows[0].valid) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${ROLLUP_STATUS}`);
  await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${ROLLUP_STATUS} ON ledger_rollup_transactions (status, category, day) INCLUDE (currency, n, amount)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX IF EXISTS ${ROLLUP_STATUS}`);
  await dropIndexes(knex, INDEXES);
}
