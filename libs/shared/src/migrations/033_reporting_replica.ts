import type { Knex } from 'knex';
import { CREATE_PARTITION_SQL, HEARTBEAT_TABLE_SQL } from './replicated-partitions';

/**
 * The reporting database (docs/reporting-database.md): the ledger's copy arrives by logical
 * replication into the tables 001-032 created, with every reporting index and rollup. Added here:
 * - the replicated heartbeat, the lag's clock (its row arrives from the money database);
 * - the days a takeover rewrote after the rollups counted them (rollup_stale_days) are marked here,
 *   by a trigger on the replicated rows, not copied: the rollup job consumes the marks of this
 *   database, and a mark copied from the money database could not be consumed without the next one
 *   being lost (an update of a row the replica deleted is skipped). A takeover is the one statement
 *   that raises a transaction's attempt.
 * - the columns the money database does not publish (secrets: wallet secrets, launch keys, wallet
 *   tokens, launch public keys) are dropped: nothing here may hold them, and a NOT NULL column no
 *   publication fills would refuse every copied row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(CREATE_PARTITION_SQL);
  await knex.raw(HEARTBEAT_TABLE_SQL);
  await knex.raw(`
    -- The apply worker runs with an empty search_path: the function names its own.
    CREATE FUNCTION ledger_mark_taken_over_day() RETURNS trigger LANGUAGE plpgsql SET search_path = public AS $$
    BEGIN
      IF NEW.attempt > OLD.attempt THEN
        INSERT INTO rollup_stale_days (day) VALUES ((NEW.created_at AT TIME ZONE 'UTC')::date)
        ON CONFLICT (day) DO UPDATE SET marked_at = now();
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER transactions_taken_over AFTER UPDATE ON transactions
      FOR EACH ROW EXECUTE FUNCTION ledger_mark_taken_over_day();
    -- Fires for the subscription's apply worker too (it runs with session_replication_role = replica).
    ALTER TABLE transactions ENABLE ALWAYS TRIGGER transactions_taken_over;

    ALTER TABLE casinos DROP COLUMN wallet_secret_enc, DROP COLUMN launch_key_enc;
    ALTER TABLE sessions DROP COLUMN wallet_token_enc;
    ALTER TABLE game_providers DROP COLUMN launch_public_key_pem;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE casinos ADD COLUMN wallet_secret_enc text NOT NULL DEFAULT '', ADD COLUMN launch_key_enc text NOT NULL DEFAULT '';
    ALTER TABLE sessions ADD COLUMN wallet_token_enc text NOT NULL DEFAULT '';
    ALTER TABLE game_providers ADD COLUMN launch_public_key_pem text;
  `);
  await knex.raw('DROP TRIGGER transactions_taken_over ON transactions; DROP FUNCTION ledger_mark_taken_over_day(); DROP TABLE replication_heartbeat');
}
