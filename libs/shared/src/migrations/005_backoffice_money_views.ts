import type { Knex } from 'knex';

/**
 * Back office, part 2: the money views.
 *
 * The reconciliation queue and the flagged wins are derived from the ledger at read time (a
 * query over transactions and rounds), so no job can miss a late row; these tables hold only
 * what a person decided about an item (acknowledged, resolved, reviewed, with a note and who).
 * Per-casino win-flag thresholds are set by platform admins; a casino without a row uses the
 * defaults in code.
 *
 * Indexes: the back office searches across studios, so its lists need orders that do not lead
 * with group_id: (created_at DESC, id) for the platform scope and (provider_id, created_at DESC, id)
 * for a casino scope, on both money tables (the studio scope uses the reporting indexes that lead
 * with group_id). Partial indexes keep the reconciliation scans small: they hold only the rows
 * that can be items (PENDING and FAILED transactions, OPEN rounds), a tiny share of the ledger,
 * and one on settling credits by bet finds "a later SUCCESS for the same bet" without a scan.
 * Built with plain CREATE INDEX inside the migration transaction; on a large ledger, build them
 * CONCURRENTLY by hand first (IF NOT EXISTS then skips them).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX IF NOT EXISTS transactions_created_id ON transactions (created_at DESC, id);
    CREATE INDEX IF NOT EXISTS transactions_provider_created_id ON transactions (provider_id, created_at DESC, id);
    CREATE INDEX IF NOT EXISTS rounds_created_id ON rounds (created_at DESC, id);
    CREATE INDEX IF NOT EXISTS rounds_provider_created_id ON rounds (provider_id, created_at DESC, id);
    CREATE INDEX IF NOT EXISTS transactions_unsettled ON transactions (claimed_at) WHERE status <> 'SUCCESS';
    CREATE INDEX IF NOT EXISTS transactions_settling_credit ON transactions (provider_id, previous_transaction_id)
      WHERE category = 'CASH_IN' AND previous_transaction_id IS NOT NULL;
    CREATE INDEX IF NOT EXISTS rounds_open_opened ON rounds (opened_at) WHERE status = 'OPEN';
    CREATE INDEX IF NOT EXISTS transactions_paid_credits ON transactions (created_at DESC)
      WHERE category = 'CASH_IN' AND status = 'SUCCESS';

    CREATE TABLE reconciliation_decisions (
      kind         text NOT NULL,
      provider_id  text NOT NULL,
      record_id    text NOT NULL,
      group_id     text NOT NULL,
      state        text NOT NULL CHECK (state IN ('ACKNOWLEDGED','RESOLVED')),
      note         text NOT NULL,
      decided_by   text NOT NULL,
      decided_at   timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (kind, provider_id, record_id)
    );

    CREATE TABLE win_flag_thresholds (
      provider_id      text PRIMARY KEY,
      multiplier_over  numeric NOT NULL CHECK (multiplier_over >= 0),
      payout_over      jsonb NOT NULL,
      updated_by       text NOT NULL,
      updated_at       timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE win_reviews (
      transaction_pk  uuid PRIMARY KEY,
      provider_id     text NOT NULL,
      group_id        text NOT NULL,
      note            text NOT NULL,
      reviewed_by     text NOT NULL,
      reviewed_at     timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS win_reviews, win_flag_thresholds, reconciliation_decisions;
    DROP INDEX IF EXISTS transactions_created_id, transactions_provider_created_id, rounds_created_id, rounds_provider_created_id,
      transactions_unsettled, transactions_settling_credit, rounds_open_opened, transactions_paid_credits;
  `);
}
