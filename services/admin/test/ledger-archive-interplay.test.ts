import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dropDatabase, migrateToLatest } from '@relay/shared';
import { replaceMonthRollups } from '../src/ledger/archived-rollups';
import { backfillPlayerBitmaps } from '../src/ledger/player-bitmaps';
import knexFactory from 'knex';
import { countDay, runRollups } from '../src/ledger/rollups';

/**
 * How the rollup job meets the archiving of a month (018, 020).
 *
 * The bitmap backfill (020) builds a counted day's player bitmaps from its player list; an archiving
 * replaces that list (018, replaceMonthRollups) and deletes the month's bitmaps. Both take the month's
 * registry row (FOR SHARE, FOR UPDATE), so a backfill whose commit is still pending when the archiving
 * runs is either deleted by it or waits and is rebuilt from the new list: never bitmaps of the old list
 * left standing, which nothing would rebuild (archived days are never counted again).
 */
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const url = `${base}/relay_archive_interplay_${Date.now()}_${randomBytes(3).toString('hex')}`;
const now = new Date();
const MONTH = `${now.toISOString().slice(0, 7)}-01`;
const DAY = MONTH; // the first day of this month: its partition exists
let clients: pg.Client[] = [];

type Hooks = { beforeCommit?: () => Promise<void> };
const sqlOf = (client: pg.Client, hooks: Hooks = {}) => async <T = Record<string, unknown>>(text: string, bindings: readonly unknown[] = []): Promise<T[]> => {
  let i = 0;
  const q = text.replace(/\?/g, () => `$${++i}`);
  if (text === 'COMMIT' && hooks.beforeCommit) await hooks.beforeCommit();
  return (await client.query(q, bindings as unknown[])).rows as T[];
};

beforeAll(async () => {
  await migrateToLatest(url);
  clients = [new pg.Client(url), new pg.Client(url), new pg.Client(url)];
  await Promise.all(clients.map((c) => c.connect()));
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end()));
  await dropDatabase(url);
}, 120_000);

test('When an archiving replaces a day\'s player list while the bitmap backfill of that day waits to commit, then the bitmaps end as the new list', async () => {
  const [a, b, c] = clients;
  const bet = (player: string, status: string) => c.query(
    `INSERT INTO transactions (id, provider_id, transaction_id, category, status, group_id, game_id, player_id, session_id, round_id, amount, currency, language, request_fingerprint, claimed_at, created_at)
     VALUES (gen_random_uuid(), 'c1', gen_random_uuid()::text, 'CASH_OUT', $2, 'g1', 1, $1, 's', 'r', 1.00, 'EUR', 'en', 'x', $3, $3)`,
    [player, status, `${DAY}T00:00:01Z`]);
  await bet('p1', 'SUCCESS');
  await bet('p2', 'SUCCESS');
  await bet('p3', 'PENDING');
  await c.query(`INSERT INTO ledger_archives (month, state) VALUES ($1, 'exported')`, [MONTH]);
  // Counted while p3's bet was pending (listed as unfinished, not a player), then answered.
  await countDay(sqlOf(c), DAY);
  await c.query(`UPDATE transactions SET status = 'SUCCESS', completed_at = now() WHERE player_id = 'p3'`);
  // As 020 finds a day counted before it: no bitmaps yet.
  for (const t of ['ledger_rollup_player_bits', 'ledger_rollup_player_bits_all_games', 'ledger_rollup_player_bits_by_casino', 'ledger_rollup_player_bits_days']) await c.query(`DELETE FROM ${t}`);

  let release = () => undefined as void;
  const released = new Promise<void>((r) => { release = r; });
  let reached = () => undefined as void;
  const atCommit = new Promise<void>((r) => { reached = r; });
  // The backfill has built the day from the old list (p1, p2); its commit is held.
  const backfill = backfillPlayerBitmaps(sqlOf(a, { beforeCommit: async () => { reached(); await released; } }), 31);
  await atCommit;
  // The archiving's last count of the month (its rows as they are now: p1, p2, p3), started meanwhile.
  await b.query('BEGIN');
  const archiving = replaceMonthRollups(b, MONTH, 'rows').then(() => b.query('COMMIT'));
  await new Promise((r) => setTimeout(r, 300));
  release();
  await backfill;
  await archiving;
  await backfillPlayerBitmaps(sqlOf(a), 31);

  const list = (await c.query(`SELECT player_id FROM ledger_rollup_players WHERE day = $1 ORDER BY 1`, [DAY])).rows.map((r) => r.player_id);
  const decoded = (await c.query(
    `SELECT i.player_id FROM ledger_rollup_player_bits b CROSS JOIN generate_series(0, 4095) k
       JOIN ledger_player_ids i ON i.provider_id = b.provider_id AND i.n = b.block * 4096 + k
      WHERE get_bit(b.bits, k) = 1 AND b.day = $1 ORDER BY 1`, [DAY])).rows.map((r) => r.player_id);
  expect({ list, decoded }).toEqual({ list: ['p1', 'p2', 'p3'], decoded: ['p1', 'p2', 'p3'] });
}, 60_000);

test('When a day left counted up to a watermark belongs to a month being removed, then the job records it counted whole and goes on, instead of coming back to it for ever', async () => {
  const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  try {
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 10);
    const [y, m] = last.split('-');
    for (const t of ['transactions', 'rounds', 'ledger_rollup_transactions', 'ledger_rollup_rounds', 'ledger_rollup_players', 'ledger_rollup_unfinished',
      'ledger_rollup_days', 'rollup_stale_days', 'ledger_rollup_player_bits', 'ledger_rollup_player_bits_all_games', 'ledger_rollup_player_bits_by_casino', 'ledger_rollup_player_bits_days', 'ledger_archives']) {
      await db.raw(`DELETE FROM ${t}`);
    }
    // The 9th counted whole, the 10th only up to 06:00 (a watermark held back), then the month started leaving.
    await db.raw(`INSERT INTO ledger_rollup_days (day, counted_until) VALUES (?, NULL), (?, ?)`, [`${y}-${m}-09`, `${y}-${m}-10`, `${y}-${m}-10T06:00:00Z`]);
    await db.raw(`INSERT INTO ledger_archives (month, state) VALUES (?, 'removing')`, [last]);
    // A sanity bound, far above what the run needs: the bug was a run that never ended.
    const run = await Promise.race([runRollups(db, { closeMarginMs: 0 }), new Promise<'still running'>((r) => setTimeout(() => r('still running'), 30_000))]);
    expect(run).not.toBe('still running');
    const tenth = (await db.raw(`SELECT counted_until FROM ledger_rollup_days WHERE day = ?`, [`${y}-${m}-10`])).rows[0];
    expect(tenth).toEqual({ counted_until: null });
  } finally {
    await db.destroy();
  }
}, 60_000);
