import { randomBytes, randomUUID } from 'node:crypto';
import knexFactory from 'knex';
import { dropDatabase, ensureDatabaseExists, type Knex } from '@relay/shared';
import { LATE_COMPLETION, migrateReporting } from '@relay/ledger';
import type { ListCriteria, SortColumn } from '../src/data/pagedList';
import { RoundRepository, ROUND_SORT_COLUMNS, type RoundFilters } from '../src/data/rounds';
import { TransactionRepository, TRANSACTION_SORT_COLUMNS, type TransactionFilters } from '../src/data/transactions';

/**
 * completionOrder (a from/to range sorted by completedAt or settledAt, merged from the key index
 * bounded to the range plus LATE_COMPLETION, the late rows and the unfinished rows) against the plain
 * statement it stands for, on random data: keys on time (including exactly at the margin), just late,
 * hours and days late across the month's partition boundary, before their created_at (a clock step),
 * empty (PENDING, OPEN), equal to the microsecond (the id decides); random ranges whose bounds fall on
 * rows' own milliseconds, half-open ranges, both directions, page/limit at several depths and whole
 * keyset walks. Every answer must be the plain statement's, row for row.
 */
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const url = `${base}/relay_completion_order_${Date.now()}_${randomBytes(3).toString('hex')}`;
let db: Knex;

const SEED = Number(process.env.COMPLETION_ORDER_SEED ?? Math.floor(Math.random() * 2 ** 31));
const L_US = BigInt(LATE_COMPLETION.ms) * 1000n;
const DAY_US = 86_400_000_000n;
/** Rows are created over six days around the end of September (two monthly partitions). */
const START_US = BigInt(Date.UTC(2026, 8, 27)) * 1000n;
const SPAN_US = 6n * DAY_US;
const ROWS = 2400;

/** A small seeded generator (mulberry32): a failure is reproduced with COMPLETION_ORDER_SEED. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (n: bigint) => (BigInt(Math.floor(next() * 2 ** 26)) * 2n ** 26n + BigInt(Math.floor(next() * 2 ** 26))) % n;
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  return { next, below, pick };
}
const rand = generator(SEED);

/** Microseconds since the epoch as a timestamptz literal, every digit kept. */
function text(us: bigint): string {
  const ms = us / 1000n;
  return `${new Date(Number(ms)).toISOString().slice(0, 19)}.${String(us % 1_000_000n).padStart(6, '0')}Z`;
}

type Kind = 'on time' | 'at the margin' | 'just late' | 'late' | 'before created' | 'empty' | 'same key';
interface Seeded {
  id: string;
  group: string;
  created: bigint;
  key: bigint | null;
  kind: Kind;
}
const seeded: Record<'transactions' | 'rounds', Seeded[]> = { transactions: [], rounds: [] };

/** A created_at and a key of each kind, with ties on both (same microsecond) on purpose. */
function rows(): Seeded[] {
  const out: Seeded[] = [];
  for (let i = 0; i < ROWS; i += 1) {
    const earlier = out.length ? rand.pick(out) : null;
    const created = earlier && rand.next() < 0.08 ? earlier.created : START_US + rand.below(SPAN_US);
    const r = rand.next();
    let kind: Kind;
    let key: bigint | null;
    if (r < 0.5) [kind, key] = ['on time', created + rand.below(L_US + 1n)];
    else if (r < 0.56) [kind, key] = ['at the margin', rand.next() < 0.5 ? created : created + L_US];
    else if (r < 0.62) [kind, key] = ['just late', created + L_US + 1n + rand.below(5_000_000n)];
    else if (r < 0.72) [kind, key] = ['late', created + L_US + rand.below(rand.next() < 0.5 ? 6n * 3_600_000_000n : 5n * DAY_US)];
    else if (r < 0.78) [kind, key] = ['before created', created - 1n - rand.below(rand.next() < 0.5 ? 1_000_000n : 2n * DAY_US)];
    else if (r < 0.88) [kind, key] = ['empty', null];
    else {
      const other = out.filter((o) => o.key !== null);
      const source = other.length ? rand.pick(other) : null;
      [kind, key] = ['same key', source ? source.key : created];
    }
    out.push({ id: randomUUID(), group: rand.next() < 0.85 ? 'grp-a' : 'grp-b', created, key, kind });
  }
  return out;
}

async function fill(): Promise<void> {
  await db.raw(`SELECT ledger_create_partition(p, m::date) FROM generate_series(date '2026-09-01', date '2026-10-01', interval '1 month') m,
                       unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) p`);
  seeded.transactions = rows();
  seeded.rounds = rows();
  const transactions = seeded.transactions.map((s, i) => ({
    id: s.id, provider_id: rand.pick(['cas-1', 'cas-2']), transaction_id: `tx-${i}`, category: rand.pick(['CASH_OUT', 'CASH_IN']),
    status: s.key === null ? 'PENDING' : rand.pick(['SUCCESS', 'SUCCESS', 'SUCCESS', 'FAILED']), group_id: s.group, game_id: 7,
    player_id: rand.pick(['p-1', 'p-2', 'p-3']), session_id: 's', round_id: `r-${i}`, amount: '1.00', currency: rand.pick(['EUR', 'USD']),
    language: 'en', request_fingerprint: 'f', claimed_at: text(s.created), created_at: text(s.created), updated_at: text(s.created),
    completed_at: s.key === null ? null : text(s.key),
  }));
  const rounds = seeded.rounds.map((s, i) => ({
    id: s.id, provider_id: rand.pick(['cas-1', 'cas-2']), round_id: `r-${i}`, group_id: s.group, game_id: 7, player_id: rand.pick(['p-1', 'p-2', 'p-3']),
    session_id: 's', currency: rand.pick(['EUR', 'USD']), language: 'en', status: s.key === null ? 'OPEN' : 'SETTLED', bet_amount: '1.00',
    bet_transaction_id: `b-${i}`, opened_at: text(s.created), created_at: text(s.created), updated_at: text(s.created),
    settled_at: s.key === null ? null : text(s.key),
  }));
  await db.batchInsert('transactions', transactions, 500);
  await db.batchInsert('rounds', rounds, 500);
  await db.raw('VACUUM (ANALYZE) transactions');
  await db.raw('VACUUM (ANALYZE) rounds');
}

beforeAll(async () => {
  await ensureDatabaseExists(url);
  await migrateReporting(url);
  db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
  await fill();
}, 120_000);

afterAll(async () => {
  await db.destroy();
  await dropDatabase(url);
}, 120_000);

interface Range {
  from?: Date;
  to?: Date;
}

/** The statement the list stands for. */
async function expected(table: 'transactions' | 'rounds', group: string, range: Range, order: 'asc' | 'desc', equals: Filters = {}): Promise<string[]> {
  const key = table === 'transactions' ? 'completed_at' : 'settled_at';
  const q = db(table).select('id').where({ group_id: group, ...equals });
  if (range.from) q.where('created_at', '>=', range.from);
  if (range.to) q.where('created_at', '<', new Date(range.to.getTime() + 1));
  q.orderByRaw(order === 'desc' ? `${key} DESC NULLS LAST, id ASC` : `${key} ASC NULLS LAST, id DESC`);
  return ((await q) as { id: string }[]).map((r) => r.id);
}

type Lister = (criteria: Omit<ListCriteria, 'equals'>) => Promise<{ rows: { id: string }[]; next?: { key: string | null; id: string } | null; total?: number }>;

type Filters = Record<string, string | number>;

function lister(table: 'transactions' | 'rounds', group: string, filters: Filters): { list: Lister; sort: SortColumn } {
  if (table === 'transactions') {
    return { list: (c) => new TransactionRepository(db).list(group, filters as TransactionFilters, c), sort: TRANSACTION_SORT_COLUMNS.completedAt };
  }
  return { list: (c) => new RoundRepository(db).list(group, filters as RoundFilters, c), sort: ROUND_SORT_COLUMNS.settledAt };
}

/** A range whose bounds are random instants, or fall on rows' own milliseconds, or are whole days; sometimes half-open. */
function randomRange(table: 'transactions' | 'rounds'): Range {
  const ms = (us: bigint) => new Date(Number(us / 1000n));
  const someRow = () => rand.pick(seeded[table]).created;
  const r = rand.next();
  let from: bigint;
  let to: bigint;
  if (r < 0.3) {
    const day = START_US - DAY_US + rand.below(8n) * DAY_US;
    [from, to] = [day - (day % DAY_US), day - (day % DAY_US) + DAY_US - 1000n];
  } else if (r < 0.7) {
    [from, to] = [someRow(), someRow()];
  } else {
    [from, to] = [START_US - DAY_US + rand.below(SPAN_US + 2n * DAY_US), START_US - DAY_US + rand.below(SPAN_US + 2n * DAY_US)];
  }
  if (from > to) [from, to] = [to, from];
  const half = rand.next();
  if (half < 0.1) return { from: ms(from) };
  if (half < 0.2) return { to: ms(to) };
  return { from: ms(from), to: ms(to) };
}

/** The kinds of rows a list's expected answer holds, to show the data reaches every case. */
const kindsSeen = new Map<string, number>();
function note(table: 'transactions' | 'rounds', ids: string[], range: Range): void {
  const byId = new Map(seeded[table].map((s) => [s.id, s]));
  const fromUs = range.from ? BigInt(range.from.getTime()) * 1000n : null;
  const windowEnd = range.to ? (BigInt(range.to.getTime()) + 1n) * 1000n + L_US : null;
  for (const id of ids) {
    const s = byId.get(id)!;
    kindsSeen.set(s.kind, (kindsSeen.get(s.kind) ?? 0) + 1);
    if (s.key !== null && ((fromUs !== null && s.key < fromUs) || (windowEnd !== null && s.key >= windowEnd))) {
      kindsSeen.set('key outside the window', (kindsSeen.get('key outside the window') ?? 0) + 1);
    }
    if (fromUs !== null && s.created / 1000n === fromUs / 1000n && s.created % 1000n !== 0n) kindsSeen.set('created in the millisecond of from', (kindsSeen.get('created in the millisecond of from') ?? 0) + 1);
  }
}

/** Broad filters (served by the merge) and selective ones (the range read and sorted), each against the plain statement. */
const FILTERS: Record<'transactions' | 'rounds', Filters[]> = {
  transactions: [{}, {}, {}, { category: 'CASH_IN' }, { currency: 'EUR', status: 'SUCCESS' }, { providerId: 'cas-2' }, { playerId: 'p-2' }, { status: 'FAILED' }, { status: 'PENDING' }],
  rounds: [{}, {}, {}, { currency: 'USD' }, { status: 'SETTLED', gameId: 7 }, { playerId: 'p-1' }, { status: 'OPEN' }],
};
const COLUMN: Record<string, string> = { providerId: 'provider_id', playerId: 'player_id', gameId: 'game_id', category: 'category', currency: 'currency', status: 'status' };

describe.each(['transactions', 'rounds'] as const)('%s sorted by their completion within a created range', (table) => {
  it('When random ranges are listed page by page, in both directions and at several depths, then every page is the plain statement\'s', async () => {
    for (let n = 0; n < 60; n += 1) {
      const range = randomRange(table);
      const order = rand.pick(['asc', 'desc'] as const);
      const filters = rand.pick(FILTERS[table]);
      const group = rand.next() < 0.8 ? 'grp-a' : 'grp-b';
      const equals = Object.fromEntries(Object.entries(filters).map(([k, v]) => [COLUMN[k], v]));
      const want = await expected(table, group, range, order, equals);
      note(table, want, range);
      const { list, sort } = lister(table, group, filters);
      const limit = rand.pick([1, 3, 7, 20, 50, 100]);
      const pages = [1, 2, 3, Math.ceil(want.length / limit), Math.ceil(want.length / limit) + 1, 1 + Math.floor(rand.next() * (want.length / limit + 1))];
      for (const page of pages.filter((p) => p >= 1)) {
        const got = await list({ createdFrom: range.from, createdTo: range.to, sort, sortOrder: order, page, limit });
        const context = `seed ${SEED}, ${JSON.stringify({ range, order, filters, group, limit, page })}`;
        expect({ context, ids: got.rows.map((r) => r.id) }).toEqual({ context, ids: want.slice((page - 1) * limit, page * limit) });
        expect({ context, total: got.total }).toEqual({ context, total: want.length });
      }
    }
  }, 120_000);

  it('When random ranges are walked with keyset cursors to the end, in both directions, then the walk is the plain statement\'s list', async () => {
    for (let n = 0; n < 12; n += 1) {
      const range = randomRange(table);
      const order = rand.pick(['asc', 'desc'] as const);
      const want = await expected(table, 'grp-a', range, order);
      note(table, want, range);
      const { list, sort } = lister(table, 'grp-a', {});
      const limit = rand.pick([5, 25, 60]);
      const ids: string[] = [];
      let after: { key: string | null; id: string } | null = null;
      for (let pages = 0; ; pages += 1) {
        expect(pages).toBeLessThan(want.length / limit + 2);
        const got = await list({ createdFrom: range.from, createdTo: range.to, sort, sortOrder: order, page: 1, limit, after });
        ids.push(...got.rows.map((r) => r.id));
        if (!got.next) break;
        after = got.next;
      }
      const context = `seed ${SEED}, ${JSON.stringify({ range, order, limit })}`;
      expect({ context, ids }).toEqual({ context, ids: want });
    }
  }, 120_000);
});

describe('a row that changes part', () => {
  it('When a transaction of the range is taken over and completed again (on time, failed, pending, a day late, before it was created), then each list holds it once, where the plain statement does', async () => {
    const row = seeded.transactions.find((s) => s.group === 'grp-a' && s.key !== null)!;
    const range = { from: new Date(Number(row.created / 1000n) - 3_600_000), to: new Date(Number(row.created / 1000n) + 3_600_000) };
    const { list, sort } = lister('transactions', 'grp-a', {});
    const states: [string, string | null][] = [
      ['SUCCESS', text(row.created + 85_000n)],
      ['FAILED', text(row.created + 10_000_000n)],
      ['PENDING', null],
      ['SUCCESS', text(row.created + DAY_US)],
      ['PENDING', null],
      ['SUCCESS', text(row.created - 1n)],
    ];
    for (const [status, completed] of states) {
      await db('transactions').where({ id: row.id }).update({ status, completed_at: completed });
      for (const order of ['desc', 'asc'] as const) {
        const want = await expected('transactions', 'grp-a', range, order);
        const got = await list({ createdFrom: range.from, createdTo: range.to, sort, sortOrder: order, page: 1, limit: 100 });
        expect({ status, completed, order, ids: got.rows.map((r) => r.id) }).toEqual({ status, completed, order, ids: want.slice(0, 100) });
        expect(got.rows.filter((r) => r.id === row.id)).toHaveLength(want.slice(0, 100).includes(row.id) ? 1 : 0);
      }
    }
  });
});

describe('the random data', () => {
  it('When the lists above were checked, then they held rows of every kind (keys outside the window, empty, equal, at the margin, before created)', () => {
    for (const kind of ['on time', 'at the margin', 'just late', 'late', 'before created', 'empty', 'same key', 'key outside the window', 'created in the millisecond of from']) {
      expect({ kind, seen: (kindsSeen.get(kind) ?? 0) > 0 }).toEqual({ kind, seen: true });
    }
  });
});

describe('the late-completion indexes', () => {
  /** Bytes of the partition's index under the parent index `parent` (a partition created later names its own). */
  const size = async (parent: string, partition: string) => {
    const { rows } = await db.raw<{ rows: { n: string }[] }>(
      `SELECT pg_relation_size(i.inhrelid) AS n FROM pg_inherits i JOIN pg_index x ON x.indexrelid = i.inhrelid
        WHERE i.inhparent = ?::regclass AND x.indrelid = ?::regclass`,
      [parent, partition],
    );
    return Number(rows[0].n);
  };

  it('When a money call claims and completes on time, then the late indexes get no entry; completed late, one', async () => {
    // A month of its own: its late indexes are empty (the metapage alone) until an entry is written.
    await db.raw(`SELECT ledger_create_partition(p, date '2031-03-01') FROM unnest(ARRAY['transactions', 'transaction_attempts', 'rounds']) p`);
    const empty = await size('transactions_late_completed', 'transactions_p2031_03');
    const created = '2031-03-10T12:00:00.000001Z';
    const id = randomUUID();
    await db('transactions').insert({
      id, provider_id: 'cas-1', transaction_id: `micro-${id}`, category: 'CASH_OUT', status: 'PENDING', group_id: 'grp-micro', game_id: 7,
      player_id: 'p', session_id: 's', round_id: 'r', amount: '1.00', currency: 'EUR', language: 'en', request_fingerprint: 'f',
      claimed_at: created, created_at: created, updated_at: created,
    });
    await db.raw(`UPDATE transactions SET status = 'SUCCESS', completed_at = created_at + interval '3 seconds' WHERE id = ? AND created_at = ?`, [id, created]);
    const roundId = randomUUID();
    await db('rounds').insert({
      id: roundId, provider_id: 'cas-1', round_id: `micro-${roundId}`, group_id: 'grp-micro', game_id: 7, player_id: 'p', session_id: 's',
      currency: 'EUR', language: 'en', status: 'OPEN', bet_amount: '1.00', bet_transaction_id: 'b', opened_at: created, created_at: created, updated_at: created,
    });
    await db.raw(`UPDATE rounds SET status = 'SETTLED', settled_at = created_at + interval '40 seconds' WHERE id = ? AND created_at = ?`, [roundId, created]);
    expect(await size('transactions_late_completed', 'transactions_p2031_03')).toBe(empty);
    expect(await size('rounds_late_settled', 'rounds_p2031_03')).toBe(empty);

    // A takeover (FAILED -> PENDING, completed_at cleared) then a completion a day later: late.
    await db.raw(`UPDATE transactions SET status = 'PENDING', completed_at = NULL WHERE id = ? AND created_at = ?`, [id, created]);
    await db.raw(`UPDATE transactions SET status = 'SUCCESS', completed_at = created_at + interval '1 day' WHERE id = ? AND created_at = ?`, [id, created]);
    expect(await size('transactions_late_completed', 'transactions_p2031_03')).toBeGreaterThan(empty);
    const late = await db.raw<{ rows: { id: string }[] }>(
      `SELECT id FROM transactions WHERE group_id = 'grp-micro' AND created_at >= '2031-03-01' AND (${LATE_COMPLETION.condition('completed_at')})`,
    );
    expect(late.rows.map((r) => r.id)).toEqual([id]);
  });
});
