import type { Knex } from 'knex';
import { PUBLICATION, publicationSql } from '../replication';
import { CREATE_PARTITION_SQL, HEARTBEAT_TABLE_SQL } from './replicated-partitions';

/**
 * The money database carries only money (docs/reporting-database.md): reporting reads its own
 * database, a logical replica fed by the publication made here. This database keeps the indexes
 * that the money path, idempotency, in-flight and abandoned detection, the cash-in retry route and
 * retention use (docs/ledger.md, "Indexes of the money database"); every other index of the ledger
 * lives on the reporting database only.
 */
export const DROPPED_INDEXES: readonly string[] = [
  'rounds_group_created', 'rounds_group_game_created', 'rounds_group_opened', 'rounds_group_player_created',
  'rounds_group_round', 'rounds_group_settled_nl', 'rounds_late_settled', 'rounds_open', 'rounds_provider_time',
  'transactions_failed', 'transactions_group_amount', 'transactions_group_completed_nl', 'transactions_group_created',
  'transactions_group_game_created', 'transactions_group_player_created', 'transactions_group_round',
  'transactions_group_txid', 'transactions_late_completed', 'transactions_paid_credits', 'transactions_provider_time',
  'transactions_settling_credit', 'transactions_unsettled',
];

/** The secondary indexes the ledger keeps on the money database, each with what uses it (docs/ledger.md). */
export const MONEY_LEDGER_INDEXES: Record<string, string> = {
  transactions_group_status_time: "the abandoned-transaction alarm: PENDING per studio older than the in-flight window (services/wallet data/transactions.ts, abandonedTransactions)",
  transactions_created_id: 'moving rows out of the default partition when a month is created (ledger_create_partition)',
  rounds_created_id: 'the same, for rounds',
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw(CREATE_PARTITION_SQL);
  await knex.raw(HEARTBEAT_TABLE_SQL);
  await knex.raw(`INSERT INTO replication_heartbeat (id, beat, beat_at, horizon_at) VALUES (1, 0, now(), '-infinity')`);
  // A partitioned index cannot be dropped concurrently: the drops lock the ledger briefly. Both
  // tables are taken at once or not at all (a money call holds one and asks for the other: waiting
  // while holding the first would deadlock it), and never queued behind for long.
  await lockLedger(knex);
  for (const index of DROPPED_INDEXES) await knex.raw(`DROP INDEX IF EXISTS ${index}`);
  await knex.raw(publicationSql());
}

async function lockLedger(knex: Knex, attempts = 400): Promise<void> {
  for (let i = 1; ; i += 1) {
    await knex.raw('SAVEPOINT lock_ledger');
    try {
      await knex.raw('LOCK TABLE transactions, rounds IN ACCESS EXCLUSIVE MODE NOWAIT');
      await knex.raw('RELEASE SAVEPOINT lock_ledger');
      return;
    } catch (err) {
      await knex.raw('ROLLBACK TO SAVEPOINT lock_ledger');
      if ((err as { code?: string }).code !== '55P03' || i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP PUBLICATION IF EXISTS ${PUBLICATION}`);
  await knex.raw('DROP TABLE replication_heartbeat');
}
