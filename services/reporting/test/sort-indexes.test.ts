import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { dropDatabase, ensureDatabaseExists, type Knex } from '@relay/shared';
import { reportingMigrationSource } from '@relay/ledger';
import { RoundRepository, ROUND_SORT_COLUMNS } from '../src/data/rounds';
import { TransactionRepository, TRANSACTION_SORT_COLUMNS } from '../src/data/transactions';
import { searchPageQuery } from '../../backoffice/src/data/search';

/**
 * The sort indexes (REPORTING_INDEXES_SQL, first added by migration 012 before the squash): the sorted
 * lists (amount, completedAt, settledAt, newest or largest first) read their first page from an index
 * in the list's own order, on a ledger that holds months of partitions; a partition created later
 * gets the indexes too.
 */
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const url = `${base}/relay_sort_indexes_${Date.now()}_${randomBytes(3).toString('hex')}`;
let db: Knex;

const ROUNDS = 30_000;
const NEW_INDEXES = ['transactions_group_completed_nl', 'transactions_group_amount', 'rounds_group_settled_nl'];
const REPLACED = ['transactions_group_completed', 'rounds_group_settled'];

/** Rounds and their bet and credit over three months (each in its partition); 2 % open with a PENDING credit. */
async function fill(): Promise<void> {
  await db.raw(`SELECT ledger_create_partition(p, m::date) FROM generate_series(date '2026-08-01', date '2026-10-01', interval '1 month') m,
                       unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) p`);
  await db.raw(`
    INSERT INTO rounds (id, provider_id, round_id, group_id, game_id, player_id, session_id, currency, language, status,
                        bet_amount, bet_transaction_id, payout_amount, opened_at, settled_at, created_at, updated_at)
    SELECT gen_random_uuid(), 'cas-' || (i % 3), 'r-' || i, 'grp-' || (i % 2), 7, 'p-' || (i % 50), 's', 'EUR', 'en',
           CASE WHEN i % 50 = 0 THEN 'OPEN' ELSE 'SETTLED' END, (i % 997 + 1) / 4.0, 'b-' || i,
           CASE WHEN i % 50 = 0 THEN NULL ELSE (i % 89) / 2.0 END,
           t, CASE WHEN i % 50 = 0 THEN NULL ELSE t + interval '7 seconds' END, t, t
      FROM generate_series(1, ${ROUNDS}) i, LATERAL (SELECT timestamptz '2026-08-01 00:00:00+00' + (i * interval '4 minutes') AS t) x`);
  await db.raw(`
    INSERT INTO transactions (id, provider_id, transaction_id, previous_transaction_id, category, status, group_id, game_id, player_id,
                              session_id, round_id, amount, currency, language, balance, request_fingerprint, claimed_at, completed_at, created_at, updated_at)
    SELECT gen_random_uuid(), r.provider_id, CASE WHEN c = 'CASH_OUT' THEN r.bet_transaction_id ELSE 'w-' || r.round_id END,
           CASE WHEN c = 'CASH_IN' THEN r.bet_transaction_id END, c,
           CASE WHEN c = 'CASH_IN' AND r.status = 'OPEN' THEN 'PENDING' ELSE 'SUCCESS' END,
           r.group_id, r.game_id, r.player_id, 's', r.round_id,
           CASE WHEN c = 'CASH_OUT' THEN r.bet_amount ELSE coalesce(r.payout_amount, 1) END, 'EUR', 'en', 100, 'f',
           r.created_at, CASE WHEN c = 'CASH_IN' AND r.status = 'OPEN' THEN NULL ELSE r.created_at + interval '1 second' END,
           r.created_at + CASE WHEN c = 'CASH_IN' THEN interval '1 second' ELSE interval '0' END, r.created_at
      FROM rounds r CROSS JOIN (VALUES ('CASH_OUT'), ('CASH_IN')) AS cats(c)`);
  // One busy day of a studio of its own with 20 casinos (a casino's day is a twentieth of it).
  await db.raw(`
    INSERT INTO rounds (id, provider_id, round_id, group_id, game_id, player_id, session_id, currency, language, status,
                        bet_amount, bet_transaction_id, payout_amount, opened_at, settled_at, created_at, updated_at)
    SELECT gen_random_uuid(), 'dense-' || (i % 20), 'd-' || i, 'grp-dense', 7, 'p', 's', 'EUR', 'en', 'SETTLED', (i % 991 + 1) / 4.0, 'db-' || i,
           1, t, t + interval '5 seconds', t, t
      FROM generate_series(1, 40000) i, LATERAL (SELECT timestamptz '2026-10-20 00:00:00+00' + (i * interval '2 seconds') AS t) x`);
  await db.raw(`
    INSERT INTO transactions (id, provider_id, transaction_id, category, status, group_id, game_id, player_id, session_id, round_id,
                              amount, currency, language, balance, request_fingerprint, claimed_at, completed_at, created_at, updated_at)
    SELECT gen_random_uuid(), r.provider_id, r.bet_transaction_id, 'CASH_OUT', 'SUCCESS', r.group_id, 7, 'p', 's', r.round_id,
           r.bet_amount, 'EUR', 'en', 100, 'f', r.created_at, r.created_at, r.created_at, r.created_at
      FROM rounds r WHERE r.group_id = 'grp-dense'`);
  await db.raw('VACUUM (ANALYZE) transactions');
  await db.raw('VACUUM (ANALYZE) rounds');
}

/** Each index name with whether it is valid, over the parents and every partition. */
async function indexes(): Promise<Map<string, boolean>> {
  const { rows } = await db.raw<{ rows: { name: string; valid: boolean }[] }>(
    `SELECT c.relname AS name, x.indisvalid AS valid FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
      JOIN pg_class t ON t.oid = x.indrelid WHERE t.relname ~ '^(transactions|rounds)(_p|$)'`,
  );
  return new Map(rows.map((r) => [r.name, r.valid]));
}

async function partitions(parent: string): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { name: string }[] }>(`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = ?::regclass`, [parent]);
  return rows.map((r) => r.name);
}

/**
 * The plan with each partition's index named <partition>__<parent index>: PostgreSQL names a
 * partition's index after its columns, so the plan says which list index it read this way.
 */
async function byParentIndex(plan: string): Promise<string> {
  const { rows } = await db.raw<{ rows: { child: string; partition: string; parent: string }[] }>(
    `SELECT c.relname AS child, t.relname AS partition, p.relname AS parent FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent AND p.relkind = 'I'
       JOIN pg_index x ON x.indexrelid = c.oid JOIN pg_class t ON t.oid = x.indrelid`,
  );
  const names = new Map(rows.map((r) => [r.child, `${r.partition}__${r.parent}`]));
  return plan.replace(/using (\w+)/g, (whole, name: string) => (names.has(name) ? `using ${names.get(name)}` : whole));
}

/** The plan of the statement a list sends for its page ids (captured from the repository's own query). */
async function pagePlan(run: (read: Knex) => Promise<unknown>): Promise<string> {
  const sent: { sql: string; bindings: readonly unknown[] }[] = [];
  const listener = (q: { sql: string; bindings?: readonly unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
  db.on('query', listener);
  try {
    await run(db);
  } finally {
    db.removeListener('query', listener);
  }
  const page = sent.find((s) => /join \(select/i.test(s.sql));
  if (!page) throw new Error(`no page statement among ${sent.map((s) => s.sql).join(' | ')}`);
  // knex sends $1, $2... in order; raw() takes ? placeholders.
  const plan = await db.raw<{ rows: Record<string, string>[] }>(`EXPLAIN ${page.sql.replace(/\$\d+/g, '?')}`, page.bindings as Knex.RawBinding[]);
  return byParentIndex(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
}

beforeAll(async () => {
  await ensureDatabaseExists(url);
  db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  await db.migrate.latest({ migrationSource: reportingMigrationSource });
  await fill();
}, 120_000);

// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  await db.destroy();
  await dropDatabase(url);
}, 120_000);

describe('the sort indexes', () => {
  it('When the ledger has months of partitions, then each sort index is valid on every partition and the indexes they replaced are absent', async () => {
    const all = await indexes();
    for (const name of NEW_INDEXES) expect(all.get(name)).toBe(true);
    for (const name of REPLACED) expect(all.has(name)).toBe(false);
    const { rows } = await db.raw<{ rows: { parent: string; partition: string; valid: boolean }[] }>(
      `SELECT p.relname AS parent, t.relname AS partition, x.indisvalid AS valid FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
         JOIN pg_index x ON x.indexrelid = i.inhrelid JOIN pg_class t ON t.oid = x.indrelid
        WHERE p.relname = ANY(?)`,
      [NEW_INDEXES],
    );
    for (const table of ['transactions', 'rounds']) {
      for (const partition of await partitions(table)) {
        const own = rows.filter((r) => r.partition === partition);
        expect(own.length).toBe(table === 'transactions' ? 2 : 1);
        expect(own.every((r) => r.valid)).toBe(true);
      }
    }
  }, 60_000);

  it('When a month is created later, then its partition has the sort indexes', async () => {
    await db.raw(`SELECT ledger_create_partition(p, date '2031-01-01') FROM unnest(ARRAY['transactions', 'rounds']) p`);
    const { rows } = await db.raw<{ rows: { parent: string; valid: boolean }[] }>(
      `SELECT p.relname AS parent, x.indisvalid AS valid FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
         JOIN pg_index x ON x.indexrelid = i.inhrelid JOIN pg_class t ON t.oid = x.indrelid
        WHERE p.relname = ANY(?) AND t.relname ~ '_p2031_01$'`,
      [NEW_INDEXES],
    );
    expect(rows.map((r) => r.parent).sort()).toEqual([...NEW_INDEXES].sort());
    expect(rows.every((r) => r.valid)).toBe(true);
  });

  const page = { page: 1, limit: 50, sortOrder: 'desc' as const };
  it.each([
    ['transactions by amount', 'group_amount', (read: Knex) => new TransactionRepository(read).list('grp-1', {}, { ...page, sort: TRANSACTION_SORT_COLUMNS.amount })],
    [
      'transactions by amount within one day',
      'group_amount',
      (read: Knex) => new TransactionRepository(read).list('grp-1', {}, {
        ...page, sort: TRANSACTION_SORT_COLUMNS.amount, createdFrom: new Date('2026-09-10T00:00:00Z'), createdTo: new Date('2026-09-10T23:59:59.999Z'),
      }),
    ],
    ['transactions by completedAt', 'group_completed_nl', (read: Knex) => new TransactionRepository(read).list('grp-1', {}, { ...page, sort: TRANSACTION_SORT_COLUMNS.completedAt })],
    ['rounds by settledAt', 'group_settled_nl', (read: Knex) => new RoundRepository(read).list('grp-1', {}, { ...page, sort: ROUND_SORT_COLUMNS.settledAt })],
    // 015: a status alone, newest first (any category).
    ['transactions by createdAt, PENDING only', 'group_status_time', (read: Knex) => new TransactionRepository(read).list('grp-0', { status: 'PENDING' }, { ...page, sort: TRANSACTION_SORT_COLUMNS.createdAt })],
    // 017: a studio's open rounds, newest first, from the partial index of open rounds.
    ['rounds by createdAt, OPEN only', 'p\\d{4}_\\d{2}__rounds_open\\b', (read: Knex) => new RoundRepository(read).list('grp-0', { status: 'OPEN' }, { ...page, sort: ROUND_SORT_COLUMNS.createdAt })],
  ])('When a list is sorted %s, newest or largest first, then its page ids come from the sort index in order, not from a sort of the history', async (_, index, run) => {
    const plan = await pagePlan(run);
    expect(plan).toMatch(new RegExp(`Index (Only )?Scan using \\w*${index}`));
    // The only Sort allowed is of the page's own rows (at most the limit), after the ids are chosen.
    const sorts = plan.split('\n').filter((line) => /\bSort\b/.test(line) && !/Sort Key/.test(line));
    for (const line of sorts) expect(Number(/rows=(\d+)/.exec(line)?.[1] ?? 0)).toBeLessThanOrEqual(page.limit);
  });

  type DayRun = (read: Knex, range: { createdFrom: Date; createdTo: Date }, sortOrder: 'asc' | 'desc') => Promise<{ rows: object[] }>;
  const settledDay: DayRun = (read, range, sortOrder) => new RoundRepository(read).list('grp-dense', {}, { ...page, ...range, sortOrder, sort: ROUND_SORT_COLUMNS.settledAt });
  const completedDay: DayRun = (read, range, sortOrder) => new TransactionRepository(read).list('grp-dense', {}, { ...page, ...range, sortOrder, sort: TRANSACTION_SORT_COLUMNS.completedAt });
  it.each([
    ['rounds by settledAt', 'desc', 'group_settled_nl', '_open', settledDay],
    ['rounds by settledAt', 'asc', 'group_settled_nl', '_open', settledDay],
    ['transactions by completedAt', 'desc', 'group_completed_nl', 'group_status_time', completedDay],
    ['transactions by completedAt', 'asc', 'group_completed_nl', 'group_status_time', completedDay],
  ] as const)('When a busy day is sorted %s %s, then its page comes from the sort index read from that day\'s end (plus the lateness margin), not from the newest entry, nor from the whole day sorted', async (_, order, index, unfinished, run) => {
    // completionOrder (021): the index bounded to the day, late and unfinished rows merged in. Read
    // from its newest entry it would step over every later row to reach the day; the day read by
    // created_at would be 40,000 rows to sort.
    const range = { createdFrom: new Date('2026-10-20T00:00:00Z'), createdTo: new Date('2026-10-20T23:59:59.999Z') };
    const plan = await pagePlan((read) => run(read, range, order));
    expect(plan).toMatch(new RegExp(`Index Scan (Backward )?using \\w*${index}[^\\n]*\\n\\s*Index Cond: \\(\\(group_id = 'grp-dense'::text\\) AND \\(\\w+ >= '2026-10-20 00:00:00\\+00'[^\\n]* AND \\(\\w+ < '2026-10-21 00:05:00\\+00'`));
    // The late rows through ledger_late_keys (027: its query reads 021's index of late rows, see
    // backoffice unfinished-totals.test.ts), the unfinished rows from their own index (sorted: few);
    // nothing reads the day whole.
    expect(plan).toMatch(/Function Scan on ledger_late_keys/);
    expect(plan).toMatch(new RegExp(`Index Only Scan using \\w*${unfinished}`));
    expect(plan).not.toMatch(/Bitmap Heap Scan|Seq Scan on \w+_p2026_10/);
    const rows = await run(db, range, order);
    const keys = rows.rows.map((r) => ('settledAt' in r ? r.settledAt : (r as { completedAt?: string }).completedAt) as string);
    expect(keys.length).toBe(page.limit);
    expect(keys).toEqual(order === 'desc' ? [...keys].sort().reverse() : [...keys].sort());
  });

  it('When a day sorted by completedAt is filtered on a player (selective, with an index of its own), then it reads that player\'s day and sorts it instead', async () => {
    const plan = await pagePlan((read) => new TransactionRepository(read).list('grp-0', { playerId: 'p-7' }, {
      ...page, sort: TRANSACTION_SORT_COLUMNS.completedAt, createdFrom: new Date('2026-08-10T00:00:00Z'), createdTo: new Date('2026-08-10T23:59:59.999Z'),
    }));
    expect(plan).not.toMatch(/using \w*(group_completed_nl|late_completed)/);
  });

  it.each([
    ['transactions', 'amount'],
    ['rounds', 'settledAt'],
  ] as const)('When a casino searches its %s of one day by %s (back office, casino scope), then it reads that casino\'s day from its own index (016), not every casino\'s', async (table, by) => {
    const query = searchPageQuery(db, table, { type: 'casino', providerId: 'dense-1' }, {
      from: new Date('2026-10-20T00:00:00Z'), to: new Date('2026-10-20T23:59:59.999Z'),
    }, 50, { by, order: 'desc' });
    const { sql, bindings } = query.toSQL();
    // At this test's size a scan of the month is as cheap as any index, so the planner is asked
    // to read an index: the casino and the day must then both be index conditions of 016's index
    // (at 30M the planner picks it by itself: BENCHMARKS.md, back office).
    const plan = await byParentIndex(await db.transaction(async (trx) => {
      await trx.raw('SET LOCAL enable_seqscan = off');
      await trx.raw('SET LOCAL enable_bitmapscan = off');
      return (await trx.raw<{ rows: Record<string, string>[] }>(`EXPLAIN ${sql}`, bindings as Knex.RawBinding[])).rows.map((r) => r['QUERY PLAN']).join('\n');
    }));
    expect(plan).toMatch(new RegExp(`using ${table}_p2026_10__${table}_provider_time[^\\n]*\\n\\s*Index Cond: \\(\\(provider_id = 'dense-1'::text\\) AND \\(created_at >=`));
    const rows = (await query) as { provider_id: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.provider_id === 'dense-1')).toBe(true);
  });

  it('When the sorted lists are read, then they are in the order asked, empty values last', async () => {
    const byAmount = await new TransactionRepository(db).list('grp-1', {}, { ...page, sort: TRANSACTION_SORT_COLUMNS.amount });
    const amounts = byAmount.rows.map((r) => r.amount);
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
    expect(amounts[0]).toBe(249.25);
    const bySettled = await new RoundRepository(db).list('grp-0', {}, { page: 300, limit: 50, sortOrder: 'desc', sort: ROUND_SORT_COLUMNS.settledAt });
    // 15,000 rounds of grp-0, 300 of them open (no settledAt): the last page holds them.
    expect(bySettled.rows.every((r) => r.settledAt === undefined)).toBe(true);
    expect(bySettled.total).toBe(15_000);
  });

  it('When another studio wrote the newest rows, then a studio\'s cash-ins newest first come from its own index, not from the platform\'s newest rows', async () => {
    // A week of another studio's cash-ins after the last of grp-1's (the fill ends on 2026-10-23).
    await db.raw(`
      INSERT INTO transactions (id, provider_id, transaction_id, category, status, group_id, game_id, player_id, session_id, round_id,
                                amount, currency, language, balance, request_fingerprint, claimed_at, completed_at, created_at, updated_at)
      SELECT gen_random_uuid(), 'cas-o', 'o-' || i, 'CASH_IN', 'SUCCESS', 'grp-other', 7, 'p', 's', 'ro-' || i,
             1, 'EUR', 'en', 100, 'f', t, t, t, t
        FROM generate_series(1, 20000) i, LATERAL (SELECT timestamptz '2026-10-24 00:00:00+00' + (i * interval '30 seconds') AS t) x`);
    await db.raw('ANALYZE transactions');
    const run = (read: Knex) => new TransactionRepository(read).list('grp-1', { category: 'CASH_IN' }, { ...page, sort: TRANSACTION_SORT_COLUMNS.createdAt });
    const plan = await pagePlan(run);
    expect(plan).toMatch(/Index (Only )?Scan using transactions_p2026_10__transactions_group_created\b/);
    expect(plan).not.toMatch(/using transactions_p2026_10__transactions_created_id\b/);
    const rows = (await run(db)).rows as { category: string; createdAt: string }[];
    expect(rows.length).toBe(page.limit);
    expect(rows.every((r) => r.category === 'CASH_IN')).toBe(true);
    const keys = rows.map((r) => r.createdAt);
    expect(keys).toEqual([...keys].sort().reverse());
  });
});
