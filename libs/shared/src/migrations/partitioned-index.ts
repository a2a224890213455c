import type { Knex } from 'knex';

/**
 * Builds an index of a partitioned money table without holding up money calls: created on the
 * parent alone (invalid, nothing locked for long), built CONCURRENTLY on each partition, then
 * attached; the parent's index becomes valid when its last partition attaches. For migrations that
 * run outside a transaction (`config = { transaction: false }`); every step is idempotent, so a run
 * interrupted part way is finished by running it again.
 */
export interface PartitionedIndex {
  table: 'transactions' | 'rounds';
  name: string;
  /** Short suffix of the partitions' own index names. */
  suffix: string;
  definition: string;
  /** The index this one replaces, dropped once it is valid. */
  replaces?: { name: string; definition: string };
}


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

export async function buildOnPartitions(knex: Knex, index: PartitionedIndex): Promise<void> {
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


/** Builds each index, then drops the one it replaces. */
export async function createIndexes(knex: Knex, indexes: readonly PartitionedIndex[]): Promise<void> {
  for (const index of indexes) {
    await buildOnPartitions(knex, index);
    if (index.replaces) await knex.raw(`DROP INDEX IF EXISTS ${index.replaces.name}`);
  }
}

/** Puts back each replaced index, then drops the new one. */
export async function dropIndexes(knex: Knex, indexes: readonly PartitionedIndex[]): Promise<void> {
  for (const index of indexes) {
    if (index.replaces) await knex.raw(`CREATE INDEX IF NOT EXISTS ${index.replaces.name} ON ${index.table} ${index.replaces.definition}`);
    await knex.raw(`DROP INDEX IF EXISTS ${index.name}`);
  }
}
