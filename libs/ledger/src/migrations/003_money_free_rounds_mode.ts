import type { Knex } from 'knex';

/**
 * A casino's free-rounds mode (issue 35): `passthrough` (the default: a freebet credit's awardId is
 * relayed unchecked, as the spec has it) or `managed` (every freebet credit must name an award of
 * free_round_awards, and consumes one of its rounds). A column of `casinos` because the wallet
 * reads a casino's configuration from that row (libs/shared/src/registry.ts) and its cache is
 * dropped by the same 'casino' change; the casino's own PUT body does not carry it (it has a route
 * of its own). Not published to the reporting database: the publication lists casinos' columns.
 * Adding a column with a constant default rewrites no rows (PostgreSQL 11+).
 */
export async function up(knex: Knex): Promise<void> {
  // The CHECK scans casinos under ACCESS EXCLUSIVE: a small table, but a migration queued behind a
  // long transaction would hold every registry read behind it. It gives up instead (run it again).
  await knex.raw(`SET LOCAL lock_timeout = '10s'`);
  await knex.raw(`
    ALTER TABLE casinos
      ADD COLUMN free_rounds_mode text NOT NULL DEFAULT 'passthrough' CHECK (free_rounds_mode IN ('passthrough', 'managed'));

  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE casinos DROP COLUMN IF EXISTS free_rounds_mode');
}
