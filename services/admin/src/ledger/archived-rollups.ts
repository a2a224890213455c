import type pg from 'pg';
import { monthRange } from './archive';
import { PLAYER_BITMAP_TABLES } from './player-bitmaps';

/**
 * The last rollups of a month that leaves the database (docs/ledger.md, "Exact totals" and
 * "Retention and archives"). Once archived, a month is never counted again (its rows are gone) and
 * the reports read it from its rollups alone, so they must hold exactly the rows the archive holds,
 * as they left:
 * - a monthly partition is counted once more from its rows under the lock its drop is checked
 *   under (no row can change after that count): replaceMonthRollups(client, month, 'rows');
 * - a legacy month leaves in chunks, and a row may change while it waits for its chunk: each chunk
 *   adds what its rows contribute to the month's removed rollups (migration 018) in the transaction
 *   that deletes them (addRemovedRollups), and the month's rollups are then replaced by their sums
 *   in the transaction that makes it `archived`: replaceMonthRollups(client, month, 'removed').
 * Both count the rows left unfinished (PENDING, OPEN) under their status: in the archive they are
 * final, and the unfinished list, read live, would find nothing any more. The stale marks of the
 * month's days are removed: nothing is left to recount.
 */

/** Per rollup table: its key columns, and its sums as aggregates over rows aliased `x`. */
const ROLLUPS = {
  transactions: {
    key: ['group_id', 'provider_id', 'game_id', 'currency', 'category', 'status'],
    sums: { n: 'count(*)', amount: 'sum(x.amount)' },
  },
  rounds: {
    key: ['group_id', 'provider_id', 'game_id', 'currency', 'status'],
    sums: { n: 'count(*)', bet_amount: 'sum(x.bet_amount)', payout_amount: 'coalesce(sum(x.payout_amount), 0)' },
  },
} as const;
const PLAYER_KEY = ['group_id', 'provider_id', 'game_id', 'currency', 'player_id'];
const DAY = `(x.created_at AT TIME ZONE 'UTC')::date`;

/** The rollup rows of the rows `x` a FROM clause selects (it ends in a WHERE clause): ` AND ...` may follow it. */
function aggregate(table: keyof typeof ROLLUPS, from: string): { columns: string; select: string } {
  const { key, sums } = ROLLUPS[table];
  const columns = ['day', ...key, ...Object.keys(sums)].join(', ');
  const select = `SELECT ${DAY}, ${key.map((c) => `x.${c}`).join(', ')}, ${Object.values(sums).join(', ')} FROM ${from} GROUP BY ${key.map((_, i) => i + 2).join(', ')}, 1`;
  return { columns, select };
}

function players(from: string): { columns: string; select: string } {
  return {
    columns: ['day', ...PLAYER_KEY].join(', '),
    select: `SELECT DISTINCT ${DAY}, ${PLAYER_KEY.map((c) => `x.${c}`).join(', ')} FROM ${from} AND x.status = 'SUCCESS' AND x.category = 'CASH_OUT'`,
  };
}

/**
 * Adds what a chunk's rows contribute to the month's removed rollups. `from`: the chunk's rows of
 * each table, as a FROM clause over `x` ending in a WHERE clause (legacy-chunks.ts builds them).
 * Call it inside the chunk's transaction, before its rows are deleted: it commits with them or not at all.
 */
export async function addRemovedRollups(client: pg.ClientBase, from: { transactions?: string; rounds?: string }): Promise<void> {
  for (const table of ['transactions', 'rounds'] as const) {
    const rows = from[table];
    if (!rows) continue;
    const { columns, select } = aggregate(table, rows);
    const conflict = ['day', ...ROLLUPS[table].key].join(', ');
    const add = Object.keys(ROLLUPS[table].sums).map((s) => `${s} = r.${s} + excluded.${s}`).join(', ');
    await client.query(`INSERT INTO ledger_removed_${table} AS r (${columns}) ${select} ON CONFLICT (${conflict}) DO UPDATE SET ${add}`);
    if (table === 'transactions') {
      const p = players(rows);
      await client.query(`INSERT INTO ledger_removed_players (${p.columns}) ${p.select} ON CONFLICT DO NOTHING`);
    }
  }
}

/**
 * Replaces every rollup of the month's days (the unfinished list emptied) by the month's final
 * figures: from its rows as they are now ('rows': call it where no row of the month can change
 * until the commit), or from the removed rollups its chunks added ('removed', which it then
 * clears). Every day of the month is then counted, none stale. Call it inside the transaction that
 * archives the month.
 */
export async function replaceMonthRollups(client: pg.ClientBase, month: string, source: 'rows' | 'removed'): Promise<void> {
  const { lo, hi } = monthRange(month);
  // The registry's row first: the bitmap backfill holds it FOR SHARE while it builds a day's bitmaps
  // from the player list replaced here, so it either commits before (and its bitmaps are deleted
  // below) or waits and builds them from the new list.
  await client.query('SELECT 1 FROM ledger_archives WHERE month = $1::date FOR UPDATE', [lo.slice(0, 10)]);
  const days = `day >= '${lo.slice(0, 10)}'::date AND day < '${hi.slice(0, 10)}'::date`;
  for (const table of ['ledger_rollup_transactions', 'ledger_rollup_rounds', 'ledger_rollup_players', 'ledger_rollup_unfinished']) {
    await client.query(`DELETE FROM ${table} WHERE ${days}`);
  }
  // lo and hi come from monthRange (a YYYY-MM-DD month), never from a caller's text.
  const monthRows = (table: string) => `${table} x WHERE x.created_at >= '${lo}' AND x.created_at < '${hi}'`;
  for (const table of ['transactions', 'rounds'] as const) {
    const rows = aggregate(table, monthRows(table));
    const select = source === 'rows' ? rows.select : `SELECT ${rows.columns} FROM ledger_removed_${table} WHERE ${days}`;
    await client.query(`INSERT INTO ledger_rollup_${table} (${rows.columns}) ${select}`);
  }
  const p = players(monthRows('transactions'));
  await client.query(`INSERT INTO ledger_rollup_players (${p.columns}) ${source === 'rows' ? p.select : `SELECT ${p.columns} FROM ledger_removed_players WHERE ${days}`}`);
  await client.query(
    `INSERT INTO ledger_rollup_days (day) SELECT d::date FROM generate_series($1::date, $2::date - 1, interval '1 day') d
     ON CONFLICT (day) DO UPDATE SET rolled_at = now(), counted_until = NULL`,
    [lo.slice(0, 10), hi.slice(0, 10)],
  );
  await client.query(`DELETE FROM rollup_stale_days WHERE ${days}`);
  // The player bitmaps (020) follow the replaced player lists: the rollup job's backfill builds them
  // again from ledger_rollup_players, and until then reports read the days from those lists.
  for (const table of PLAYER_BITMAP_TABLES) await client.query(`DELETE FROM ${table} WHERE ${days}`);
  if (source === 'removed') {
    for (const table of ['ledger_removed_transactions', 'ledger_removed_rounds', 'ledger_removed_players']) await client.query(`DELETE FROM ${table} WHERE ${days}`);
  }
}
