import type { Knex } from 'knex';

/**
 * The rollups of a legacy month as its rows leave (docs/ledger.md, "Months in the legacy
 * partition"). While a month is `removing`, a takeover or a late settlement may change a row that
 * has not left yet, and the day's rollups cannot be recounted any more (a recount would see only
 * the rows still there). So each chunk, in the transaction that deletes its rows, adds what those
 * rows contribute to each rollup key (from the same locked rows its file holds) into these tables,
 * with the same columns as 009's rollups; when the month is assembled, its days' rollups are
 * replaced by these sums (exactly the rows as they left, which is the archive) in the transaction
 * that makes the month `archived`, and its rows here are deleted.
 *
 * Unlike 009's, these count the rows that left unfinished (PENDING, OPEN) under their status: an
 * archived row can no longer change (a repeat is revived into the current month), so its state is
 * final, and the unfinished list, read live, would find nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE ledger_removed_transactions (
      day         date NOT NULL,
      group_id    text NOT NULL,
      provider_id text NOT NULL,
      game_id     integer NOT NULL,
      currency    text NOT NULL,
      category    text NOT NULL,
      status      text NOT NULL,
      n           bigint NOT NULL,
      amount      numeric NOT NULL,
      PRIMARY KEY (day, group_id, provider_id, game_id, currency, category, status)
    );
    CREATE TABLE ledger_removed_rounds (
      day           date NOT NULL,
      group_id      text NOT NULL,
      provider_id   text NOT NULL,
      game_id       integer NOT NULL,
      currency      text NOT NULL,
      status        text NOT NULL,
      n             bigint NOT NULL,
      bet_amount    numeric NOT NULL,
      payout_amount numeric NOT NULL,
      PRIMARY KEY (day, group_id, provider_id, game_id, currency, status)
    );
    CREATE TABLE ledger_removed_players (
      day         date NOT NULL,
      group_id    text NOT NULL,
      provider_id text NOT NULL,
      game_id     integer NOT NULL,
      currency    text NOT NULL,
      player_id   text NOT NULL,
      PRIMARY KEY (day, group_id, provider_id, game_id, currency, player_id)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS ledger_removed_players, ledger_removed_rounds, ledger_removed_transactions');
}
