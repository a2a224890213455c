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
 * Indexes: the back office searches across studios, so its lists need an order that does not
 * lead with group_id: (created_at DESC, id) on both money tables (the studio scope uses the
 * reporting indexes that lead with group_id; a casino scope walks the same order, filtered).
 * Partial indexes keep the reconciliation scans small: unsettled transactions (PENDING and
 * FAILED, a tiny share of the ledger), and settling credits by bet, which finds "a later SUCCESS
 * for the same bet" without a scan. Left out on purpose: (provider_id, created_at) and a partial
 * index of OPEN rounds. Every money statement filters by provider_id and by OPEN, and on small
 * tables not yet analyzed the planner chose those indexes over the unique keys for the outcome
 * statements (services/wallet/test/money-plans.test.ts), plans a cached generic plan keeps as
 * the tables grow. They belong on a reporting database of their own.
 * Built with plain CREATE INDEX inside the migration transaction; on a large ledger, build them
 * CONCURRENTLY by hand first (IF NOT EXISTS then skips them).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX IF NOT EXISTS transactions_created_id ON transactions (created_at DESC, id);
    CREATE INDEX IF NOT EXISTS rounds_created_id ON rounds (created_at DESC, id);
    CREATE INDEX IF NOT EXISTS transactions_unsettled ON transactions (claimed_at) WHERE status <> 'SUCCESS';
    CREATE INDEX IF NOT EXISTS transactions_settling_credit ON transactions (provider_id, previous_transaction_id)
      WHERE category = 'CASH_IN' AND previous_transaction_id IS NOT NULL;
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
    DROP INDEX IF EXISTS transactions_created_id, rounds_created_id, transactions_unsettled, transactions_settling_credit, transactions_paid_credits;
  `);
}
