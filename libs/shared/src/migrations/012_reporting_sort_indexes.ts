import type { Knex } from 'knex';

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

interface SortIndex {
  table: 'transactions' | 'rounds';
  name: string;
  /** Short suffix of the partitions' own index names. */
  suffix: string;
  definition: string;
  /** The index this one replaces, dropped once it is valid. */
  replaces?: { name: string; definition: string };
}

const INDEXES: SortIndex[] = [
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

async function partitionsOf(knex: Knex, table: string): Promise<string[]> {
  const { rows } = await knex.raw<{ rows: { name: string }[] }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = ?::regclass ORDER BY c.relname`,
    [table],
  );
  return rows.map((r) => r.name);
}

/** The index of `partition` already attached to `parentIndex`, if any. */
async function attachedIndex(knex: Knex, parentIndex: string, partition: string): Promise<string | null> {
  const { rows } = await knex.raw<{ rows: { name: string }[] }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_index x ON x.indexrelid = c.oid
      WHERE i.inhparent = ?::regclass AND x.indrelid = ?::regclass`,
    [parentIndex, partition],
  );
  return rows[0]?.name ?? null;
}

async function buildOnPartitions(knex: Knex, index: SortIndex): Promise<void> {
  await knex.raw(`CREATE INDEX IF NOT EXISTS ${index.name} ON ONLY ${index.table} ${index.definition}`);
  for (const partition of await partitionsOf(knex, index.table)) {
    if (await attachedIndex(knex, index.name, partition)) continue;
    const own = `${partition}_${index.suffix}`.slice(0, 63);
    // A CONCURRENTLY build interrupted part way leaves an invalid index: build it again.
    const { rows } = await knex.raw<{ rows: { valid: boolean }[] }>(
      `SELECT x.indisvalid AS valid FROM pg_class c JOIN pg_index x ON x.indexrelid = c.oid WHERE c.relname = ?`,
      [own],
    );
    if (rows[0] && !rows[0].valid) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${own}`);
    await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${own} ON ${partition} ${index.definition}`);
    await knex.raw(`ALTER INDEX ${index.name} ATTACH PARTITION ${own}`);
  }
}

export async function up(knex: Knex): Promise<void> {
  for (const index of INDEXES) {
    await buildOnPartitions(knex, index);
    if (index.replaces) await knex.raw(`DROP INDEX IF EXISTS ${index.replaces.name}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const index of INDEXES) {
    if (index.replaces) await knex.raw(`CREATE INDEX IF NOT EXISTS ${index.replaces.name} ON ${index.table} ${index.replaces.definition}`);
    await knex.raw(`DROP INDEX IF EXISTS ${index.name}`);
  }
}
