import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import knexFactory, { type Knex } from 'knex';
import { dropDatabase, ledgerCount, migrateReporting, type LedgerTable } from '@relay/shared';
import { notClosed, runRollups, watermark } from '../src/ledger/rollups';
import { listingHorizon } from '../src/ledger/settled';

/**
 * Exact totals from the daily rollups (docs/ledger.md, "Exact totals"): on random data over six
 * days, rolled up (today up to the watermark), then changed the ways the ledger changes after a
 * day was counted (PENDING answered, FAILED taken over: the wallet's takeover marks its day, today
 * included, OPEN rounds settled, new rows today after the watermark: created_at is the inserting
 * transaction's start, so a row written after the count is never before it), the rollup total of
 * random filter combinations equals count(*) of the same filter, before and after the job counts
 * again; and the watermark is held back by a transaction still running.
 */
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const url = `${base}/relay_rollups_${Date.now()}_${randomBytes(3).toString('hex')}`;
let db: Knex;

const GROUPS = ['g1', 'g2'];
const CASINOS = ['c1', 'c2', 'c3'];
const GAMES = [1, 2];
const CURRENCIES = ['EUR', 'USD'];
const DAY_MS = 86_400_000;
const startOfToday = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];

/** Random rows created in [from, until) (ms), none in the future. */
async function fill(rows: number, from: number, until: number): Promise<void> {
  const tx: Record<string, unknown>[] = [];
  const rounds: Record<string, unknown>[] = [];
  for (let i = 0; i < rows; i++) {
    const at = new Date(from + Math.floor(Math.random() * (until - from)));
    if (at.getTime() >= Date.now()) continue;
    const common = { provider_id: pick(CASINOS), group_id: pick(GROUPS), game_id: pick(GAMES), currency: pick(CURRENCIES), player_id: `p${i % 7}`, session_id: 's', language: 'en', created_at: at };
    const r = Math.random();
    tx.push({
      ...common, id: randomUUID(), transaction_id: `t-${randomUUID()}`, round_id: `r${i}`, category: pick(['CASH_OUT', 'CASH_IN']),
      status: r < 0.15 ? 'PENDING' : r < 0.3 ? 'FAILED' : 'SUCCESS', amount: (Math.floor(Math.random() * 10000) / 100).toFixed(2), request_fingerprint: 'x', claimed_at: at,
    });
    rounds.push({ ...common, id: randomUUID(), round_id: `r-${randomUUID()}`, status: Math.random() < 0.2 ? 'OPEN' : 'SETTLED', bet_amount: '1.00', bet_transaction_id: 'b', opened_at: at });
  }
  await db.batchInsert('transactions', tx, 500);
  await db.batchInsert('rounds', rounds, 500);
}

const daysAgo = (n: number) => startOfToday - n * DAY_MS;
const today = new Date(startOfToday).toISOString().slice(0, 10);
type Sql = <T>(text: string, bindings?: readonly unknown[]) => Promise<T[]>;
const sql: Sql = async <T,>(text: string, bindings: readonly unknown[] = []) => (await db.raw(text, bindings as Knex.RawBinding[])).rows as T[];

/** Where today's rollup stops: rows created from here on are read live. */
async function countedUntil(): Promise<number> {
  const [row] = await sql<{ until: Date | null }>('SELECT counted_until AS until FROM ledger_rollup_days WHERE day = ?::date', [today]);
  return row?.until ? row.until.getTime() : startOfToday;
}

/** How the ledger changes after a day was counted. Returns the days a takeover marked. */
async function changeAfterCounting(): Promise<string[]> {
  // As the wallet's statements do: a row finishes with its key (completed_at, settled_at) set to now(),
  // and a takeover clears it; totals rely on it to find the listed rows that finished (migration 025).
  await db.raw(`UPDATE transactions SET status = 'SUCCESS', completed_at = now() WHERE id IN (SELECT id FROM transactions WHERE status = 'PENDING' ORDER BY random() LIMIT 20)`);
  // A takeover rewrites a FAILED record (here its game and amount) and marks its day, as the wallet's statement does.
  await db.raw(`WITH taken AS (
      UPDATE transactions SET status = 'PENDING', completed_at = NULL, game_id = 3 - game_id, amount = amount + 1
       WHERE id IN (SELECT id FROM transactions WHERE status = 'FAILED' ORDER BY random() LIMIT 10) RETURNING created_at)
    INSERT INTO rollup_stale_days (day) SELECT DISTINCT (created_at AT TIME ZONE 'UTC')::date FROM taken ON CONFLICT (day) DO UPDATE SET marked_at = now()`);
  // And one of today's, counted in today's partial rollup.
  const marked = await db.raw(`WITH taken AS (
      UPDATE transactions SET status = 'PENDING', completed_at = NULL, game_id = 3 - game_id, amount = amount + 1
       WHERE id IN (SELECT id FROM transactions WHERE status = 'FAILED' AND created_at >= ? AND created_at < ? LIMIT 3) RETURNING created_at)
    INSERT INTO rollup_stale_days (day) SELECT DISTINCT (created_at AT TIME ZONE 'UTC')::date FROM taken ON CONFLICT (day) DO UPDATE SET marked_at = now()
    RETURNING to_char(day, 'YYYY-MM-DD') AS day`, [new Date(startOfToday), new Date(await countedUntil())]);
  await db.raw(`UPDATE rounds SET status = 'SETTLED', settled_at = now() WHERE id IN (SELECT id FROM rounds WHERE status = 'OPEN' ORDER BY random() LIMIT 20)`);
  await fill(100, await countedUntil(), Date.now()); // today, after the job looked: from where it stopped counting
  return (marked.rows as { day: string }[]).map((r) => r.day);
}

const filterArb = (table: LedgerTable) =>
  fc.record({
    group_id: fc.option(fc.constantFrom(...GROUPS), { nil: undefined }),
    provider_id: fc.option(fc.constantFrom(...CASINOS), { nil: undefined }),
    game_id: fc.option(fc.constantFrom(...GAMES), { nil: undefined }),
    currency: fc.option(fc.constantFrom(...CURRENCIES), { nil: undefined }),
    status: fc.option(table === 'transactions' ? fc.constantFrom('PENDING', 'FAILED', 'SUCCESS') : fc.constantFrom('OPEN', 'SETTLED'), { nil: undefined }),
    category: fc.option(fc.constantFrom('CASH_OUT', 'CASH_IN'), { nil: undefined }),
    // Hours from the start of the data, any alignment: whole days and partial edges.
    fromHours: fc.option(fc.integer({ min: 0, max: 7 * 24 }), { nil: undefined }),
    spanHours: fc.option(fc.integer({ min: 0, max: 7 * 24 }), { nil: undefined }),
  });

async function compare(table: LedgerTable, f: Awaited<ReturnType<ReturnType<typeof filterArb>['generate']>>['value']): Promise<void> {
  const equals: Record<string, string | number> = {};
  for (const c of ['group_id', 'provider_id', 'game_id', 'currency', 'status', ...(table === 'transactions' ? ['category'] : [])] as const) {
    const v = f[c as keyof typeof f];
    if (v !== undefined) equals[c] = v as string | number;
  }
  const from = f.fromHours === undefined ? undefined : new Date(startOfToday - 6 * DAY_MS + f.fromHours * 3_600_000 + 1234);
  const until = f.spanHours === undefined ? undefined : new Date((from?.getTime() ?? startOfToday - 6 * DAY_MS) + f.spanHours * 3_600_000);
  const live = db(table).where(equals);
  if (from) live.where('created_at', '>=', from);
  if (until) live.where('created_at', '<', until);
  const expected = Number((await live.count({ n: '*' }))[0].n);
  const counted = await ledgerCount(db, {
    table, from, until, requirePartition: true,
    narrow: (q, alias) => { for (const [c, v] of Object.entries(equals)) q.where(`${alias}.${c}`, v); return q; },
  });
  expect({ table, equals, from, until, total: Number(counted.rows[0].total) }).toEqual({ table, equals, from, until, total: expected });
}

/** Keys by which the unfinished list's counts (024, 026's per casino, 028's per currency and category) differ from counting the list itself. */
async function countsAgainstList(): Promise<number> {
  const differ = async (table: string, key: string) => {
    const counts = `SELECT ${key}, n FROM ${table}`;
    const list = `SELECT ${key}, count(*) AS n FROM ledger_rollup_unfinished GROUP BY ${key}`;
    const [{ n, listed }] = (await db.raw(
      `SELECT (SELECT count(*) FROM ((${counts} EXCEPT ${list}) UNION ALL (${list} EXCEPT ${counts})) x)::int AS n,
              (SELECT count(*) FROM ledger_rollup_unfinished)::int AS listed`,
    )).rows;
    expect(listed).toBeGreaterThan(0);
    return n as number;
  };
  return (await differ('ledger_rollup_unfinished_counts', 'parent, day, group_id, provider_id, game_id, currency, category'))
    + (await differ('ledger_rollup_unfinished_casino_counts', 'parent, day, group_id, provider_id'))
    + (await differ('ledger_rollup_unfinished_currency_counts', 'parent, day, group_id, currency, category'))
    + (await differ('ledger_rollup_unfinished_casino_currency_counts', 'parent, day, provider_id, currency, category'));
}

/** Rows by which the coarse rollups (029's per studio and status, 030's per casino or studio and currency) differ from summing the rollups themselves. */
async function byStatusAgainstRollups(): Promise<number> {
  const differ = async (coarse: string, rollup: string, key: string, sums: string) => {
    const a = `SELECT ${key}, ${sums} FROM ${coarse}`;
    const b = `SELECT ${key}, ${sums.split(', ').map((c) => `sum(${c}) AS ${c}`).join(', ')} FROM ${rollup} GROUP BY ${key}`;
    return Number((await db.raw(`SELECT count(*) AS n FROM ((${a} EXCEPT ${b}) UNION ALL (${b} EXCEPT ${a})) x`)).rows[0].n);
  };
  return (await differ('ledger_rollup_transactions_by_status', 'ledger_rollup_transactions', 'day, group_id, category, status', 'n, amount'))
    + (await differ('ledger_rollup_rounds_by_status', 'ledger_rollup_rounds', 'day, group_id, status', 'n, bet_amount, payout_amount'))
    + (await differ('ledger_rollup_transactions_by_casino', 'ledger_rollup_transactions', 'day, provider_id, currency, category, status', 'n, amount'))
    + (await differ('ledger_rollup_rounds_by_casino', 'ledger_rollup_rounds', 'day, provider_id, currency, status', 'n, bet_amount, payout_amount'))
    + (await differ('ledger_rollup_transactions_by_studio', 'ledger_rollup_transactions', 'day, group_id, currency, category, status', 'n, amount'))
    + (await differ('ledger_rollup_rounds_by_studio', 'ledger_rollup_rounds', 'day, group_id, currency, status', 'n, bet_amount, payout_amount'))
    // The players counted per day (032), from the bitmaps' generated bit_count.
    + (await differ('ledger_rollup_player_counts_by_casino', 'ledger_rollup_player_bits_by_casino', 'day, provider_id, currency', 'n'))
    + (await differ('ledger_rollup_player_counts_all_games', 'ledger_rollup_player_bits_all_games', 'day, group_id, provider_id, currency', 'n'));
}

/** Rows by which the player bitmaps, decoded through the dictionary, differ from the player lists: [by game, without the game, without the studio]. */
async function bitmapsAgainstPlayerLists(): Promise<[number, number, number]> {
  const decoded = (table: string, keys: string) => `
    SELECT b.day, ${keys}, i.player_id FROM ${table} b CROSS JOIN generate_series(0, 4095) k
      JOIN ledger_player_ids i ON i.provider_id = b.provider_id AND i.n = b.block * 4096 + k
     WHERE get_bit(b.bits, k) = 1`;
  const differ = async (bits: string, list: string) =>
    Number((await db.raw(`SELECT count(*) AS n FROM ((${bits} EXCEPT ${list}) UNION ALL (${list} EXCEPT ${bits})) x`)).rows[0].n);
  const byGame = 'b.group_id, b.provider_id, b.game_id, b.currency';
  const allGames = 'b.group_id, b.provider_id, b.currency';
  const byCasino = 'b.provider_id, b.currency';
  return [
    await differ(decoded('ledger_rollup_player_bits', byGame), `SELECT b.day, ${byGame}, b.player_id FROM ledger_rollup_players b`),
    await differ(decoded('ledger_rollup_player_bits_all_games', allGames), `SELECT b.day, ${allGames}, b.player_id FROM ledger_rollup_players b`),
    await differ(decoded('ledger_rollup_player_bits_by_casino', byCasino), `SELECT b.day, ${byCasino}, b.player_id FROM ledger_rollup_players b`),
  ];
}

beforeAll(async () => {
  await migrateReporting(url);
  db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
  await db.raw(`SELECT ledger_create_partition(p, (now() - interval '7 days')::date) FROM unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) p`);
  await fill(3000, daysAgo(6), Date.now());
}, 60000);
// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(url);
}, 120_000);

describe('exact totals from the daily rollups', () => {
  it('When the closed days were counted and the ledger then changed, then every total of random filters equals count(*), before and after the next count', async () => {
    const first = await runRollups(db, { closeMarginMs: 0, watermarkStepMs: 60_000 });
    expect(first?.rolled.length).toBeGreaterThanOrEqual(5);
    expect(first?.partial?.day).toBe(today);
    // Today's rows before the watermark are in the rollups, not read live.
    expect(Number((await sql<{ n: string }>('SELECT sum(n) AS n FROM ledger_rollup_transactions WHERE day = ?::date', [today]))[0].n)).toBeGreaterThan(0);
    expect(await changeAfterCounting()).toContain(today);
    for (const table of ['transactions', 'rounds'] as const) {
      await fc.assert(fc.asyncProperty(filterArb(table), (f) => compare(table, f)), { numRuns: 60 });
    }
    expect(await countsAgainstList()).toBe(0);
    expect(await byStatusAgainstRollups()).toBe(0);
    const second = await runRollups(db, { closeMarginMs: 0, watermarkStepMs: 60_000 });
    expect(second?.recounted.length).toBeGreaterThan(0);
    expect(second?.partial?.day).toBe(today);
    expect(Number((await db.raw('SELECT count(*) AS n FROM rollup_stale_days')).rows[0].n)).toBe(0);
    // The recounts deleted and listed rows again: the counts by key (024) followed, and the sums per
    // studio and status (029) followed the rollups' deletes, inserts and span merges.
    expect(await countsAgainstList()).toBe(0);
    expect(await byStatusAgainstRollups()).toBe(0);
    expect(Number((await db.raw('SELECT count(*) AS n FROM ledger_rollup_transactions_by_status')).rows[0].n)).toBeGreaterThan(0);
    await fill(50, await countedUntil(), Date.now()); // written after this count, before the watermark's next advance
    for (const table of ['transactions', 'rounds'] as const) {
      await fc.assert(fc.asyncProperty(filterArb(table), (f) => compare(table, f)), { numRuns: 60 });
    }
  }, 120000);

  it('When listed rows are old and still unfinished, then a run marks them not fresh, and totals still count every one that finishes afterwards: it finishes late, and the late rows find it', async () => {
    await runRollups(db, { closeMarginMs: 0, watermarkStepMs: 60_000 });
    // As migration 025 leaves the rows listed before it: nothing known of when they were listed.
    await db.raw('UPDATE ledger_rollup_unfinished SET fresh = true');
    const run = await runRollups(db, { closeMarginMs: 0, watermarkStepMs: 60_000 });
    const [listed] = await sql<{ unfresh: number; unfreshRecent: number; unfreshFinished: number; freshOld: number }>(
      `SELECT count(*) FILTER (WHERE NOT u.fresh)::int AS unfresh,
              count(*) FILTER (WHERE NOT u.fresh AND u.created_at >= now() - interval '5 minutes')::int AS "unfreshRecent",
              count(*) FILTER (WHERE NOT u.fresh AND coalesce(t.status, r.status) NOT IN ('PENDING', 'OPEN'))::int AS "unfreshFinished",
              count(*) FILTER (WHERE u.fresh AND coalesce(t.status, r.status) IN ('PENDING', 'OPEN') AND u.created_at < now() - interval '7 minutes')::int AS "freshOld"
         FROM ledger_rollup_unfinished u
         LEFT JOIN transactions t ON u.parent = 'transactions' AND t.id = u.id AND t.created_at = u.created_at
         LEFT JOIN rounds r ON u.parent = 'rounds' AND r.id = u.id AND r.created_at = u.created_at`,
    );
    // The run marked the old ones still unfinished, and only those: none created in the last 5 minutes
    // (they could still finish on time), none that had finished (a lookup must find those).
    expect(listed.unfresh).toBeGreaterThan(20);
    expect(run?.unfresh).toBe(listed.unfresh);
    expect(listed).toEqual({ ...listed, unfreshRecent: 0, unfreshFinished: 0, freshOld: 0 });

    // Some of them finish now, as the wallet finishes a row: each is then late (its key minus its
    // created_at is over 5 minutes), and no longer fresh to look up.
    const finished = await sql<{ id: string }>(`
      WITH picked AS (SELECT id, created_at FROM ledger_rollup_unfinished WHERE parent = 'transactions' AND NOT fresh ORDER BY random() LIMIT 12),
           done AS (UPDATE transactions t SET status = CASE WHEN random() < 0.5 THEN 'SUCCESS' ELSE 'FAILED' END, completed_at = now()
                      FROM picked p WHERE t.id = p.id AND t.created_at = p.created_at RETURNING t.id),
           picked_rounds AS (SELECT id, created_at FROM ledger_rollup_unfinished WHERE parent = 'rounds' AND NOT fresh ORDER BY random() LIMIT 12),
           settled AS (UPDATE rounds r SET status = 'SETTLED', settled_at = now()
                      FROM picked_rounds p WHERE r.id = p.id AND r.created_at = p.created_at RETURNING r.id)
      SELECT id FROM done UNION ALL SELECT id FROM settled`);
    expect(finished.length).toBe(24);
    for (const table of ['transactions', 'rounds'] as const) {
      await fc.assert(fc.asyncProperty(filterArb(table), (f) => compare(table, f)), { numRuns: 60 });
    }
    // The next run recounts their closed days: they leave the list for the rollups (today's stay listed until it closes).
    expect((await runRollups(db, { closeMarginMs: 0, watermarkStepMs: 60_000 }))?.recounted.length).toBeGreaterThan(0);
    expect(Number((await db.raw(`SELECT count(*) AS n FROM ledger_rollup_unfinished WHERE id = ANY(?::uuid[]) AND day < ?::date`, [finished.map((r) => r.id), today])).rows[0].n)).toBe(0);
    for (const table of ['transactions', 'rounds'] as const) {
      await fc.assert(fc.asyncProperty(filterArb(table), (f) => compare(table, f)), { numRuns: 20 });
    }
  }, 120000);

  it('When a transaction is running, then the listing horizon is at least 5 minutes (the late margin) plus the close margin before its start', async () => {
    const holder = await db.client.acquireConnection();
    try {
      await db.raw('BEGIN').connection(holder);
      const [{ started }] = (await db.raw('SELECT now() AS started').connection(holder)).rows as { started: Date }[];
      const horizon = await listingHorizon(sql, 30_000);
      expect(horizon).not.toBeNull();
      expect(Date.parse(horizon as string)).toBeLessThanOrEqual(started.getTime() - 5 * 60_000 - 30_000);
      await db.raw('ROLLBACK').connection(holder);
      // Without it, the clock is the bound.
      const [{ clock }] = await sql<{ clock: Date }>('SELECT clock_timestamp() AS clock');
      const free = await listingHorizon(sql, 0);
      expect(Date.parse(free as string)).toBeGreaterThan(started.getTime() - 5 * 60_000);
      expect(Date.parse(free as string)).toBeLessThanOrEqual(clock.getTime() - 5 * 60_000 + 1000);
    } finally {
      await db.client.releaseConnection(holder);
    }
  });

  it('When the job may not read the start of another role\'s session, then no day closes before it, and the listing horizon is unknown; granted pg_read_all_stats, both are judged', async () => {
    const suffix = randomBytes(3).toString('hex');
    const role = `rollup_job_${suffix}`;
    await db.raw(`CREATE ROLE ${role} LOGIN`);
    // The job's clock on a reporting database is the replicated heartbeat: its role reads it.
    await db.raw(`GRANT SELECT ON replication_heartbeat TO ${role}`);
    const job = knexFactory({ client: 'pg', connection: url.replace('//postgres@', `//${role}@`), pool: { min: 0, max: 1 } });
    const jobSql: Sql = async <T,>(text: string, bindings: readonly unknown[] = []) => (await job.raw(text, bindings as Knex.RawBinding[])).rows as T[];
    try {
      // This suite's own connections (role postgres) are open: to that role, hidden sessions.
      await db.raw('SELECT 1');
      expect(await listingHorizon(jobSql, 0)).toBeNull();
      expect(await notClosed(jobSql, new Date(startOfToday - 2 * DAY_MS).toISOString().slice(0, 10), 0)).toMatch(/hidden/);
      await db.raw(`GRANT pg_read_all_stats TO ${role}`);
      expect(await listingHorizon(jobSql, 0)).not.toBeNull();
      expect(await notClosed(jobSql, new Date(startOfToday - 2 * DAY_MS).toISOString().slice(0, 10), 0)).toBeNull();
    } finally {
      await job.destroy();
      await db.raw(`REVOKE SELECT ON replication_heartbeat FROM ${role}`);
      await db.raw(`DROP ROLE ${role}`);
    }
  });

  it('When a filter names a column in raw SQL, then a total refuses it rather than answer it from a table that cannot apply that filter', () => {
    expect(() => ledgerCount(db, { table: 'rounds', requirePartition: true, narrow: (q, alias) => q.whereRaw(`${alias}.provider_id = ?`, ['c1']) }))
      .toThrow(/must name its columns/);
    expect(() => ledgerCount(db, { table: 'rounds', requirePartition: true, narrow: (q, alias) => q.where(`${alias}.provider_id`, 'c1') })).not.toThrow();
  });

  it('When the unfinished list changes by any statement (rows added, some of a key removed, updated, the table emptied), then its counts by key follow in the same transaction', async () => {
    const trx = await db.transaction();
    try {
      const counted = async () => (await trx.raw(
        `SELECT currency, n::int AS n FROM ledger_rollup_unfinished_counts WHERE parent = 'rounds' AND day = '2000-01-01' ORDER BY currency`,
      )).rows as { currency: string; n: number }[];
      const row = (i: number, currency: string) => ({
        parent: 'rounds', day: '2000-01-01', id: `00000000-0000-4000-8000-00000000000${i}`, created_at: '2000-01-01T12:00:00Z',
        group_id: 'gx', provider_id: 'cx', game_id: 1, currency, category: null,
      });
      await trx('ledger_rollup_unfinished').insert([row(1, 'EUR'), row(2, 'EUR'), row(3, 'EUR'), row(4, 'USD')]);
      expect(await counted()).toEqual([{ currency: 'EUR', n: 3 }, { currency: 'USD', n: 1 }]);
      await trx('ledger_rollup_unfinished').where({ id: row(1, 'EUR').id }).delete();
      expect(await counted()).toEqual([{ currency: 'EUR', n: 2 }, { currency: 'USD', n: 1 }]);
      await trx('ledger_rollup_unfinished').where({ id: row(2, 'EUR').id }).update({ currency: 'USD' });
      expect(await counted()).toEqual([{ currency: 'EUR', n: 1 }, { currency: 'USD', n: 2 }]);
      await trx('ledger_rollup_unfinished').where({ id: row(3, 'EUR').id }).delete();
      expect(await counted()).toEqual([{ currency: 'USD', n: 2 }]);
      // Per casino (026): the same rows, one key; per currency (028): by currency.
      expect(Number((await trx.raw(`SELECT n FROM ledger_rollup_unfinished_casino_counts WHERE parent = 'rounds' AND day = '2000-01-01'`)).rows[0].n)).toBe(2);
      expect((await trx.raw(`SELECT currency, n::int AS n FROM ledger_rollup_unfinished_currency_counts WHERE parent = 'rounds' AND day = '2000-01-01'`)).rows).toEqual([{ currency: 'USD', n: 2 }]);
      await trx.raw('TRUNCATE ledger_rollup_unfinished');
      expect(Number((await trx.raw('SELECT count(*) AS n FROM ledger_rollup_unfinished_counts')).rows[0].n)).toBe(0);
      expect(Number((await trx.raw('SELECT count(*) AS n FROM ledger_rollup_unfinished_casino_counts')).rows[0].n)).toBe(0);
      expect(Number((await trx.raw('SELECT count(*) AS n FROM ledger_rollup_unfinished_currency_counts')).rows[0].n)).toBe(0);
    } finally {
      await trx.rollback();
    }
  });

  it('When two jobs race over new players, then one counts each day, the player dictionary stays dense and unique, and every bitmap decodes to exactly its players', async () => {
    // New players on counted days, as a takeover brings them (it marks their days).
    const days = ((await db.raw(`SELECT to_char(day, 'YYYY-MM-DD') AS day FROM ledger_rollup_days ORDER BY day LIMIT 3`)).rows as { day: string }[]).map((r) => r.day);
    for (const [i, day] of days.entries()) {
      const at = new Date(`${day}T0${i + 1}:00:00Z`);
      const rows = Array.from({ length: 30 }, (_, k) => ({
        id: randomUUID(), transaction_id: `t-${randomUUID()}`, round_id: `new-${i}-${k}`, category: 'CASH_OUT', status: 'SUCCESS', amount: '1.00',
        provider_id: pick(CASINOS), group_id: pick(GROUPS), game_id: pick(GAMES), currency: pick(CURRENCIES), player_id: `newcomer-${k % 9}`,
        session_id: 's', language: 'en', created_at: at, request_fingerprint: 'x', claimed_at: at,
      }));
      await db.batchInsert('transactions', rows, 100);
    }
    await db.raw(`INSERT INTO rollup_stale_days (day) SELECT unnest(?::date[]) ON CONFLICT (day) DO UPDATE SET marked_at = now()`, [days]);
    const runs = await Promise.all([runRollups(db, { closeMarginMs: 0 }), runRollups(db, { closeMarginMs: 0 })]);
    const recounted = runs.flatMap((r) => r?.recounted ?? []).sort();
    expect(recounted).toEqual(days);

    const dictionary = await db.raw(
      `SELECT provider_id, count(*)::int AS players, (max(n) + 1)::int AS span, count(DISTINCT n)::int AS numbers FROM ledger_player_ids GROUP BY provider_id`,
    );
    expect(dictionary.rows.length).toBe(CASINOS.length);
    for (const r of dictionary.rows as { players: number }[]) expect(r).toEqual({ ...r, span: r.players, numbers: r.players });
    // A writer without the lock cannot give a number twice.
    await expect(db.raw(`INSERT INTO ledger_player_ids (provider_id, player_id, n) VALUES ('c1', 'intruder', 0)`)).rejects.toThrow(/unique/);

    // Each bitmap, decoded through the dictionary, is its day's player list; without the game, their union.
    expect(await bitmapsAgainstPlayerLists()).toEqual([0, 0, 0]);
    expect(Number((await db.raw(`SELECT count(*) AS n FROM ledger_rollup_players WHERE player_id LIKE 'newcomer-%'`)).rows[0].n)).toBeGreaterThan(0);
    expect(Number((await db.raw(`SELECT count(*) AS n FROM ledger_rollup_days d WHERE NOT EXISTS (SELECT 1 FROM ledger_rollup_player_bits_days b WHERE b.day = d.day)`)).rows[0].n)).toBe(0);
  }, 60000);

  it('When a transaction that began before a day ended is still open, then that day is not closed; once it ends, it is', async () => {
    // Today, judged as if it had ended a day early (margin -24 h): the holder began before its end.
    const holder = await db.transaction();
    try {
      await holder.raw('SELECT txid_current()');
      expect(await notClosed(sql, today, -DAY_MS)).toMatch(/transaction\(s\) that started before the day ended are still running/);
    } finally {
      await holder.rollback();
    }
    expect(await notClosed(sql, today, -DAY_MS)).toBeNull();
    // And a day that has not ended is never closed.
    expect(await notClosed(sql, today, 0)).toMatch(/has not ended/);
  });

  it('When a transaction that began before the watermark would be is still running, then it holds the watermark back, and its rows are counted live once committed', async () => {
    const holder = await db.transaction();
    try {
      const [{ started }] = (await holder.raw('SELECT now() AS started')).rows as { started: Date }[];
      // A money call that began now and has not committed: its row's created_at is its start.
      await holder('transactions').insert({
        id: randomUUID(), transaction_id: `t-${randomUUID()}`, round_id: 'held', provider_id: 'c1', group_id: 'g1', game_id: 1, currency: 'EUR',
        player_id: 'p-held', session_id: 's', language: 'en', category: 'CASH_OUT', status: 'SUCCESS', amount: '5.00', request_fingerprint: 'x',
        claimed_at: holder.raw('now()'), created_at: holder.raw('now()'),
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const held = await watermark(sql, 0, 1);
      expect('at' in held && Date.parse(held.at) <= started.getTime()).toBe(true);
      const run = await runRollups(db, { closeMarginMs: 0, watermarkStepMs: 1 });
      expect(Date.parse(run?.partial?.countedUntil ?? '')).toBeLessThanOrEqual(started.getTime());
      await holder.commit();
    } catch (err) {
      await holder.rollback();
      throw err;
    }
    // Committed after the count: read live, so every total still equals count(*).
    for (const table of ['transactions', 'rounds'] as const) {
      await fc.assert(fc.asyncProperty(filterArb(table), (f) => compare(table, f)), { numRuns: 30 });
    }
    const none = { group_id: undefined, provider_id: undefined, game_id: undefined, currency: undefined, status: undefined, category: undefined, fromHours: undefined, spanHours: undefined };
    await compare('transactions', none);
    await compare('transactions', { ...none, group_id: 'g1', provider_id: 'c1', game_id: 1, currency: 'EUR', status: 'SUCCESS', category: 'CASH_OUT' });
    // Nothing running any more: the watermark moves past it.
    const free = await watermark(sql, 0, 1);
    const [{ latest }] = await sql<{ latest: Date }>(`SELECT max(created_at) AS latest FROM transactions WHERE player_id = 'p-held'`);
    expect('at' in free && Date.parse(free.at) > latest.getTime()).toBe(true);
  });

  it('When the watermark advances, then a run adds only the span written since the last one (not the day so far), and every total still equals count(*)', async () => {
    await runRollups(db, { closeMarginMs: 0, watermarkStepMs: 1000 });
    const before = await countedUntil();
    await fill(40, before, Date.now());
    // A row unfinished when its span is counted and finished after: listed, read by key.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const run = await runRollups(db, { closeMarginMs: 0, watermarkStepMs: 1000 });
    expect(run?.partial?.counted).toBe('span');
    expect(Date.parse(run?.partial?.countedUntil ?? '')).toBeGreaterThan(before);
    // The span's players joined today's bitmaps (OR-ed into its blocks), as they joined its player list.
    expect(await bitmapsAgainstPlayerLists()).toEqual([0, 0, 0]);
    // The span was merged into today's rollup rows in place: the sums per studio and status followed.
    expect(await byStatusAgainstRollups()).toBe(0);
    await db.raw(`UPDATE transactions SET status = 'SUCCESS', completed_at = now() WHERE id IN (SELECT id FROM transactions WHERE status = 'PENDING' AND created_at >= ? ORDER BY random() LIMIT 5)`, [new Date(before)]);
    for (const table of ['transactions', 'rounds'] as const) {
      await fc.assert(fc.asyncProperty(filterArb(table), (f) => compare(table, f)), { numRuns: 40 });
    }
    // A takeover's mark sends the day back to a whole count up to the watermark.
    expect(await changeAfterCounting()).toContain(today);
    const marked = await runRollups(db, { closeMarginMs: 0, watermarkStepMs: 1000 });
    expect(marked?.partial?.counted).toBe('whole');
    for (const table of ['transactions', 'rounds'] as const) {
      await fc.assert(fc.asyncProperty(filterArb(table), (f) => compare(table, f)), { numRuns: 20 });
    }
  }, 120000);

  it('When today closes after being counted up to a watermark, then its rollup is the whole day counted once: every final row summed, every unfinished one listed', async () => {
    await runRollups(db, { closeMarginMs: 0, watermarkStepMs: 1000 });
    await fill(30, await countedUntil(), Date.now());
    await db.raw(`UPDATE transactions SET status = 'SUCCESS', completed_at = now() WHERE id IN (SELECT id FROM transactions WHERE status = 'PENDING' AND created_at >= ? ORDER BY random() LIMIT 5)`, [new Date(startOfToday)]);
    // Today judged as if it had ended a day early (margin -24 h): it closes, and is counted whole.
    const run = await runRollups(db, { closeMarginMs: -DAY_MS, watermarkStepMs: 1000 });
    expect(run?.rolled).toContain(today);
    expect((await sql<{ until: Date | null }>('SELECT counted_until AS until FROM ledger_rollup_days WHERE day = ?::date', [today]))[0].until).toBeNull();
    const day = [new Date(startOfToday), new Date(startOfToday + DAY_MS)];
    const rolled = await sql(
      `SELECT group_id, provider_id, game_id, currency, category, status, n::int, amount::text FROM ledger_rollup_transactions WHERE day = ?::date ORDER BY 1, 2, 3, 4, 5, 6`, [today]);
    const plain = await sql(
      `SELECT group_id, provider_id, game_id, currency, category, status, count(*)::int AS n, sum(amount)::text AS amount FROM transactions
        WHERE created_at >= ? AND created_at < ? AND status <> 'PENDING' GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`, day);
    expect(rolled).toEqual(plain);
    const rolledRounds = await sql(`SELECT group_id, provider_id, game_id, currency, status, n::int, bet_amount::text FROM ledger_rollup_rounds WHERE day = ?::date ORDER BY 1, 2, 3, 4, 5`, [today]);
    const plainRounds = await sql(
      `SELECT group_id, provider_id, game_id, currency, status, count(*)::int AS n, sum(bet_amount)::text AS bet_amount FROM rounds
        WHERE created_at >= ? AND created_at < ? AND status <> 'OPEN' GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`, day);
    expect(rolledRounds).toEqual(plainRounds);
    const listed = await sql(`SELECT parent, id FROM ledger_rollup_unfinished WHERE day = ?::date ORDER BY 1, 2`, [today]);
    const unfinished = await sql(
      `SELECT 'transactions' AS parent, id FROM transactions WHERE created_at >= ? AND created_at < ? AND status = 'PENDING'
       UNION ALL SELECT 'rounds', id FROM rounds WHERE created_at >= ? AND created_at < ? AND status = 'OPEN' ORDER BY 1, 2`, [...day, ...day]);
    expect(listed).toEqual(unfinished);
    for (const table of ['transactions', 'rounds'] as const) {
      await fc.assert(fc.asyncProperty(filterArb(table), (f) => compare(table, f)), { numRuns: 30 });
    }
  });
});
