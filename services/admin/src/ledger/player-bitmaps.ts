import { PLAYER_BITMAPS, PLAYER_BLOCK_BITS, SPAN_EPOCH, SPAN_LENGTHS, type PlayerBitmapTable } from '@relay/shared';

/**
 * A day's player bitmaps (migration 020, docs/ledger.md "Distinct players"), built by the rollup
 * job: in countDay, from the same snapshot as the day's other rollups, and for the days counted
 * before the bitmaps existed, from the day's ledger_rollup_players (what that count saw).
 *
 * Players new to a casino get the next numbers of its dictionary (max + 1, + 2...; ordered by id
 * within a day, so a run is reproducible). Only the job writes the dictionary, under its advisory
 * lock, so the numbers stay dense; the unique (casino, n) key makes a second writer fail rather than
 * share a number.
 */

/**
 * The CTEs, comma-separated, for a WITH list (the caller writes the comma before them), that build
 * the bitmaps of day `day` (an SQL date expression) from `bets`: an SQL relation of (group_id,
 * provider_id, game_id, currency, player_id) holding every player with a successful bet that day,
 * repeated or not. Data-modifying CTEs: they run whether or not the statement reads them.
 * merge: the day already has bitmaps (a span of a day counted up to a watermark): each block is
 * OR-ed into the day's (a player already in it stays one bit).
 */
export function playerBitmapCtes(day: string, bets: string, merge = false): string {
  const or = (key: string) => (merge ? ` ON CONFLICT (${key}) DO UPDATE SET bits = x.bits | excluded.bits` : '');
  return `pb_bets AS (SELECT DISTINCT group_id, provider_id, game_id, currency, player_id FROM ${bets} b),
       pb_new AS (
         INSERT INTO ledger_player_ids (provider_id, player_id, n)
         SELECT p.provider_id, p.player_id,
                coalesce((SELECT max(i.n) FROM ledger_player_ids i WHERE i.provider_id = p.provider_id), -1)
                  + row_number() OVER (PARTITION BY p.provider_id ORDER BY p.player_id)
           FROM (SELECT DISTINCT provider_id, player_id FROM pb_bets) p
          WHERE NOT EXISTS (SELECT 1 FROM ledger_player_ids i WHERE i.provider_id = p.provider_id AND i.player_id = p.player_id)
         RETURNING provider_id, player_id, n
       ),
       pb_bits AS (
         -- The dictionary as this statement sees it lacks pb_new's rows: those come from its RETURNING.
         INSERT INTO ledger_rollup_player_bits AS x (day, group_id, provider_id, game_id, currency, block, bits)
         SELECT ${day}, b.group_id, b.provider_id, b.game_id, b.currency, coalesce(i.n, x.n) / ${PLAYER_BLOCK_BITS},
                bit_or(set_bit(B'0'::bit(${PLAYER_BLOCK_BITS}), coalesce(i.n, x.n) % ${PLAYER_BLOCK_BITS}, 1))
           FROM pb_bets b
           LEFT JOIN ledger_player_ids i ON i.provider_id = b.provider_id AND i.player_id = b.player_id
           LEFT JOIN pb_new x ON x.provider_id = b.provider_id AND x.player_id = b.player_id
          GROUP BY 2, 3, 4, 5, 6${or('day, group_id, provider_id, game_id, currency, block')}
         RETURNING group_id, provider_id, currency, block, bits
       ),
       pb_all_games AS (
         INSERT INTO ledger_rollup_player_bits_all_games AS x (day, group_id, provider_id, currency, block, bits)
         SELECT ${day}, group_id, provider_id, currency, block, bit_or(bits) FROM pb_bits GROUP BY 2, 3, 4, 5${or('day, group_id, provider_id, currency, block')}
       ),
       pb_by_casino AS (
         -- Without the studio either (022). Merging, pb_bits returns each block as merged: OR-ing it in again changes nothing.
         INSERT INTO ledger_rollup_player_bits_by_casino AS x (day, provider_id, currency, block, bits)
         SELECT ${day}, provider_id, currency, block, bit_or(bits) FROM pb_bits GROUP BY 2, 3, 4${or('day, provider_id, currency, block')}
       ),
       pb_built AS (
         INSERT INTO ledger_rollup_player_bits_days (day) VALUES (${day}) ON CONFLICT (day) DO UPDATE SET built_at = now()
       )`;
}

/** The tables a recount replaces (the dictionary stays: a player keeps its number for good). */
export const PLAYER_BITMAP_TABLES = [...Object.values(PLAYER_BITMAPS).map((t) => t.table), 'ledger_rollup_player_bits_days'];

/**
 * A day of ledger_rollup_days `d` that a span may hold: counted whole (not up to a watermark), its
 * bitmaps built, not stale.
 */
const SPANNABLE_DAY = `d.counted_until IS NULL
  AND EXISTS (SELECT 1 FROM ledger_rollup_player_bits_days b WHERE b.day = d.day)
  AND NOT EXISTS (SELECT 1 FROM rollup_stale_days s WHERE s.day = d.day)`;

type Sql = <T = Record<string, unknown>>(text: string, bindings?: readonly unknown[]) => Promise<T[]>;

/**
 * Builds the bitmaps of at most `limit` counted days that have none (counted before migration 020),
 * oldest first, each in its own transaction, from that day's ledger_rollup_players: the same
 * players the day's count saw, so the day reads the same from either. Nothing is recounted.
 */
export async function backfillPlayerBitmaps(sql: Sql, limit: number): Promise<string[]> {
  const days = await sql<{ day: string }>(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day FROM ledger_rollup_days d
      WHERE NOT EXISTS (SELECT 1 FROM ledger_rollup_player_bits_days b WHERE b.day = d.day)
      ORDER BY d.day LIMIT ?`,
    [limit],
  );
  const built: string[] = [];
  for (const { day } of days) {
    await sql('BEGIN');
    try {
      // As countDay: the month's registry row FOR SHARE, so an archiving that replaces the day's player
      // list (replaceMonthRollups, FOR UPDATE) is either committed before this reads it or waits for
      // this commit and deletes these bitmaps; then the day is checked again under that lock.
      await sql(`SELECT 1 FROM ledger_archives WHERE month = date_trunc('month', ?::date)::date FOR SHARE`, [day]);
      const [{ missing }] = await sql<{ missing: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM ledger_rollup_player_bits_days WHERE day = ?::date) AS missing', [day]);
      if (!missing) {
        await sql('COMMIT');
        continue;
      }
      await sql(
        `WITH pb_day AS (SELECT ?::date AS day),
         ${playerBitmapCtes('(SELECT day FROM pb_day)', '(SELECT group_id, provider_id, game_id, currency, player_id FROM ledger_rollup_players WHERE day = ?::date)')}
         SELECT 1`,
        [day, day],
      );
      await sql('COMMIT');
      built.push(day);
    } catch (err) {
      await sql('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
  return built;
}

/**
 * Builds the player bitmaps of every span of days (migration 031) that has none and whose days are
 * all counted whole, bitmapped and not stale: each span in its own transaction, its blocks the OR of
 * its days' blocks. Like the backfill, it first locks each month's registry row FOR SHARE, so an
 * archiving that replaces a day's bitmaps (FOR UPDATE) either committed before this reads them, or
 * waits for this commit and then deletes the span through 031's triggers. A write to a day's bitmaps
 * in between (only this job writes them otherwise, under its lock) deletes the span the same way.
 */
export async function buildPlayerSpans(sql: Sql): Promise<number> {
  const candidates = await sql<{ first_day: string; days: number }>(
    `WITH whole AS (
       SELECT d.day FROM ledger_rollup_days d WHERE ${SPANNABLE_DAY})
     SELECT to_char(c.first_day, 'YYYY-MM-DD') AS first_day, c.days
       FROM (SELECT w.day - (((w.day - ?::date) % l.days + l.days) % l.days) AS first_day, l.days, count(*) AS n
               FROM whole w CROSS JOIN unnest(?::int[]) AS l(days)
              GROUP BY 1, 2) c
      WHERE c.n = c.days
        AND NOT EXISTS (SELECT 1 FROM ledger_rollup_player_spans s WHERE s.first_day = c.first_day AND s.days = c.days)
      ORDER BY c.first_day, c.days`,
    [SPAN_EPOCH, [...SPAN_LENGTHS]],
  );
  let built = 0;
  for (const { first_day: first, days } of candidates) {
    await sql('BEGIN');
    try {
      await sql(`SELECT 1 FROM ledger_archives WHERE month >= date_trunc('month', ?::date)::date AND month < ?::date + ?::int ORDER BY month FOR SHARE`, [first, first, days]);
      // Checked again under the locks: still whole, bitmapped, not stale, not built.
      const [{ ready }] = await sql<{ ready: boolean }>(
        `SELECT count(*) = ?::int AND NOT EXISTS (SELECT 1 FROM ledger_rollup_player_spans s WHERE s.first_day = ?::date AND s.days = ?::int) AS ready
           FROM ledger_rollup_days d
          WHERE d.day >= ?::date AND d.day < ?::date + ?::int AND ${SPANNABLE_DAY}`,
        [days, first, days, first, first, days],
      );
      if (ready) {
        await sql('INSERT INTO ledger_rollup_player_spans (first_day, days) VALUES (?::date, ?::int)', [first, days]);
        for (const { table, key, spans } of Object.values<PlayerBitmapTable>(PLAYER_BITMAPS)) {
          if (spans === undefined) continue;
          const blocks = [...key, 'block'].join(', ');
          await sql(
            `INSERT INTO ${spans} (first_day, days, ${blocks}, bits)
             SELECT ?::date, ?::int, ${blocks}, bit_or(bits) FROM ${table} WHERE day >= ?::date AND day < ?::date + ?::int GROUP BY ${blocks}`,
            [first, days, first, first, days],
          );
        }
        built += 1;
      }
      await sql('COMMIT');
    } catch (err) {
      await sql('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
  return built;
}
