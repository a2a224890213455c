import type { Knex } from 'knex';

/**
 * The player bitmaps of 020 once more without the studio: per counted day, casino, currency and
 * block, the OR of the day's studios and games (docs/ledger.md, "Distinct players"). A report that
 * neither groups nor filters by studio or game (by day and casino, by casino over a period: the
 * finance reports of a casino and of the platform) reads a third of the all-games rows on the
 * benchmark data (three studios), each OR of 512 bytes a report's largest cost (at 30M, a month by
 * day and casino OR-ed 70,000 rows: about 145 of its 530 ms).
 *
 * Written with the other bitmaps by the rollup job (services/admin/src/ledger/player-bitmaps.ts), in
 * the same statement, and replaced with them. Filled here from the all-games bitmaps of the days
 * already built. Like 019, upgrade or stop every admin replica before migrating: a job from before
 * this migration would build a day without these rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE ledger_rollup_player_bits_by_casino (
      day         date NOT NULL,
      provider_id text NOT NULL,
      currency    text NOT NULL,
      block       integer NOT NULL,
      bits        bit(4096) NOT NULL,
      PRIMARY KEY (day, provider_id, currency, block)
    );
    CREATE INDEX ledger_rollup_player_bits_by_casino_provider ON ledger_rollup_player_bits_by_casino (provider_id, day);
    INSERT INTO ledger_rollup_player_bits_by_casino (day, provider_id, currency, block, bits)
    SELECT day, provider_id, currency, block, bit_or(bits) FROM ledger_rollup_player_bits_all_games GROUP BY 1, 2, 3, 4;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS ledger_rollup_player_bits_by_casino');
}
