import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import type { Knex, OperatorScope } from '@relay/shared';
import { replicated, uniqueId } from '../../../test/platform';
import { liveTotalsQuery, searchPageQuery, SORTS, type SortOrder } from '../src/data/search';
import type { LedgerFilter, LedgerTable } from '../src/data/ledger';
import { ledgerMonthsBack, playRound, startMoneyWorld, type MoneyWorld } from './money-support';

/**
 * One player across every studio and casino (issue 19). The same player id plays in studio A
 * with casino A and in studio B with casino B through the gateway, and a few thousand rows are
 * written straight into the ledger over three months for four registered studios and three
 * casinos: that player in every studio and casino, a hundred others around them, many ties. A search
 * that names the player and no studio must be exactly the SQL over the tables (every page of the
 * cursor walk in several sorts, the exact totals, the export), must stay inside a casino's or a
 * studio's scope, and must read the player's rows through the player index
 * (group_id, player_id, created_at DESC) of every partition, not everyone's.
 */
let w: MoneyWorld;
const player = uniqueId('pl-shared');
let studios: string[];
let casinos: string[];
const months: string[] = [];

beforeAll(async () => {
  w = await startMoneyWorld();
  const pa = await w.a.launchPlayer({ playerId: player, balance: 1000 });
  const pb = await w.b.launchPlayer({ playerId: player, balance: 1000 });
  await playRound(w.a, pa, 10, 20.55);
  await playRound(w.a, pa, 12.5, 0);
  await playRound(w.b, pb, 7.25, 0);
  const extra = [uniqueId('grp-pl'), uniqueId('grp-pl')];
  await w.p.db.primary('game_providers').insert(extra.map((groupId) => ({ group_id: groupId, name: groupId })));
  studios = [w.a.groupId, w.b.groupId, ...extra];
  casinos = [w.a.providerId, w.b.providerId, uniqueId('cas-pl')];
  await seedLedger();
}, 120000);
afterAll(async () => {
  await w?.stop();
});

/** ~14,000 transactions and ~8,000 rounds over this month and the two before, 1 in 101 of the shared player. */
async function seedLedger() {
  const db = w.p.db.primary;
  months.push(...(await ledgerMonthsBack(w.p.db, [0, 1, 2])));
  // Few distinct instants and amounts: the player's sort keys are shared across studios and casinos.
  const instants = months.flatMap((m) => [1, 2, 3].flatMap((d) => [`${m}-0${d}T10:00:00.000001Z`, `${m}-0${d}T10:00:00.123456Z`, `${m}-0${d}T23:59:59.999999Z`]));
  const amounts = ['0.00', '1.00', '10.00', '10.00', '25.50', '50.00', '50.01', '1000.01'];
  const pick = <T>(xs: T[], i: number, salt: number) => xs[(i * 7919 + salt * 104729) % xs.length];
  const tx: Record<string, unknown>[] = [];
  const rounds: Record<string, unknown>[] = [];
  for (let i = 0; i < 8080; i++) {
    const playerId = i % 101 === 0 ? player : `pl-other-${i % 100}`;
    const at = pick(instants, i, 1);
    const base = {
      provider_id: casinos[i % 3], group_id: studios[(i >> 1) % 4], game_id: 77, player_id: playerId, session_id: 's', round_id: `r${i}`,
      currency: i % 5 ? 'EUR' : 'USD', language: 'en', request_fingerprint: 'x', created_at: at, claimed_at: at,
    };
    const bet = pick(amounts, i, 2);
    const open = i % 4 === 0;
    tx.push({ ...base, id: randomUUID(), transaction_id: `b${i}`, category: 'CASH_OUT', status: i % 11 === 0 ? 'PENDING' : 'SUCCESS', amount: bet, completed_at: i % 11 === 0 ? null : pick(instants, i, 3) });
    if (!open) tx.push({ ...base, id: randomUUID(), transaction_id: `w${i}`, category: 'CASH_IN', status: 'SUCCESS', amount: pick(amounts, i, 4), previous_transaction_id: `b${i}`, reason: 'NORMAL_WIN', completed_at: pick(instants, i, 5) });
    rounds.push({
      id: randomUUID(), provider_id: base.provider_id, round_id: `r${i}`, group_id: base.group_id, game_id: 77, player_id: playerId, session_id: 's', currency: base.currency, language: 'en',
      status: open ? 'OPEN' : 'SETTLED', bet_amount: bet, bet_transaction_id: `b${i}`, payout_amount: open ? null : pick(amounts, i, 4), settled_at: open ? null : pick(instants, i, 6), opened_at: at, created_at: at,
    });
  }
  await db.batchInsert('transactions', tx, 500);
  await db.batchInsert('rounds', rounds, 500);
  await db.raw('ANALYZE transactions, rounds');
  // The searches run on the reporting database: its copy of the rows gets its own statistics.
  await replicated();
  await w.p.db.reporting.raw('ANALYZE transactions, rounds');
}

type Call = (method: string, path: string) => Promise<{ status: number; body: any; text: string }>;

/** Every page of a search, following meta.nextCursor: the ids in the order shown, the pages and each page's totals. */
async function walk(call: Call, table: LedgerTable, query: string, limit: number) {
  const ids: string[] = [];
  const totals: unknown[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await call('GET', `money/${table}?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect([query, res.status]).toEqual([query, 200]);
    ids.push(...res.body.data.map((r: { id: string }) => r.id));
    totals.push(res.body.meta.totals);
    cursor = res.body.meta.nextCursor;
    pages += 1;
  } while (cursor);
  return { ids, pages, totals };
}

const AMOUNT = { transactions: 'amount', rounds: 'bet_amount' } as const;

/** The reference rows: the plain SQL over the table (player, optional casino, studio and amount range). */
function plain(table: LedgerTable, where: Record<string, string>, amount?: [string, string]) {
  const q = w.p.db.primary(table).where({ player_id: player, ...where });
  if (amount) q.whereBetween(AMOUNT[table], amount);
  return q;
}

async function sqlOrder(table: LedgerTable, column: string, order: SortOrder, where: Record<string, string>, amount?: [string, string]): Promise<string[]> {
  const rows = await plain(table, where, amount).select('id').orderByRaw(`${column} ${order} NULLS LAST, id ${order === 'asc' ? 'desc' : 'asc'}`);
  return rows.map((r: { id: string }) => r.id);
}

/** The totals as the API answers them, computed by the plain SQL: count and exact sums per currency. */
async function sqlTotals(table: LedgerTable, where: Record<string, string>, amount?: [string, string]) {
  const sums = table === 'transactions' ? 'sum(amount)::text AS amount' : 'sum(bet_amount)::text AS bet_amount, coalesce(sum(payout_amount), 0)::text AS payout_amount';
  const rows: Record<string, string>[] = await plain(table, where, amount).select('currency', w.p.db.primary.raw(`count(*)::int AS n, ${sums}`)).groupBy('currency').orderBy('currency');
  return {
    count: rows.reduce((n, r) => n + Number(r.n), 0),
    byCurrency: rows.map((r) => ({
      currency: r.currency,
      count: Number(r.n),
      ...(table === 'transactions' ? { amount: Number(r.amount) } : { betAmount: Number(r.bet_amount), payoutAmount: Number(r.payout_amount) }),
    })),
  };
}

const SORTED: [LedgerTable, string, SortOrder][] = [
  ['transactions', 'createdAt', 'desc'], ['transactions', 'createdAt', 'asc'], ['transactions', 'amount', 'desc'], ['transactions', 'completedAt', 'asc'],
  ['rounds', 'createdAt', 'desc'], ['rounds', 'createdAt', 'asc'], ['rounds', 'betAmount', 'asc'], ['rounds', 'settledAt', 'desc'],
];
const column = (table: LedgerTable, by: string) => (SORTS[table] as Record<string, { column: string }>)[by].column;

describe('When a platform account searches one player and names no studio', () => {
  it('then the data holds that player id in every studio and casino, next to other players', async () => {
    for (const table of ['transactions', 'rounds'] as const) {
      const mine = await plain(table, {}).select('group_id', 'provider_id');
      expect(new Set(mine.map((r: { group_id: string }) => r.group_id))).toEqual(new Set(studios));
      expect(new Set(mine.map((r: { provider_id: string }) => r.provider_id))).toEqual(new Set(casinos));
      const all = Number((await w.p.db.primary(table).count({ n: '*' }))[0].n);
      expect(mine.length * 20).toBeLessThan(all);
    }
  });

  it.each(SORTED)('then %s by %s %s walks exactly the SQL rows page by page, with the exact totals on every page', async (table, by, order) => {
    const platform = await w.as('support', { type: 'platform' });
    const expected = await sqlOrder(table, column(table, by), order, {});
    expect(expected.length).toBeGreaterThan(40);
    const got = await walk(platform, table, `playerId=${player}&sortBy=${by}&sortOrder=${order}`, 7);
    expect(got.ids).toEqual(expected);
    expect(got.pages).toBe(Math.ceil(expected.length / 7));
    const totals = await sqlTotals(table, {});
    for (const t of got.totals) expect(t).toEqual(totals);
  });

  it('then an amount range narrows the page, the walk and the totals to the same rows as the SQL', async () => {
    const platform = await w.as('finance', { type: 'platform' });
    for (const table of ['transactions', 'rounds'] as const) {
      const range: [string, string] = ['10', '50'];
      const expected = await sqlOrder(table, column(table, 'createdAt'), 'desc', {}, range);
      expect(expected.length).toBeGreaterThan(10);
      const got = await walk(platform, table, `playerId=${player}&amountMin=10&amountMax=50`, 4);
      expect([table, got.ids]).toEqual([table, expected]);
      expect([table, got.totals[0]]).toEqual([table, await sqlTotals(table, {}, range)]);
    }
  });

  it('then the CSV export of the same search holds the same rows in the same order', async () => {
    const finance = await w.as('finance', { type: 'platform' });
    for (const table of ['transactions', 'rounds'] as const) {
      const res = await finance('GET', `money/${table}.csv?playerId=${player}`);
      expect(res.status).toBe(200);
      const rows: Record<string, string>[] = parse(res.text, { comment: '#', columns: true });
      const key = table === 'rounds' ? 'round_id' : 'transaction_id';
      const byPk = new Map((await plain(table, {}).select('id', `${key} as key`, 'provider_id')).map((r: any) => [r.id, `${r.provider_id}/${r.key}`]));
      const expected = (await sqlOrder(table, 'created_at', 'asc', {})).map((id) => byPk.get(id));
      expect(rows.map((r) => `${r.providerId}/${table === 'rounds' ? r.roundId : r.transactionId}`)).toEqual(expected);
    }
  });
});

describe('When a casino or a studio account searches the same player', () => {
  it('then a casino account walks only its casino and a studio account only its studio, rows and totals as the SQL', async () => {
    const accounts: [OperatorScope, Record<string, string>][] = [
      [{ type: 'casino', providerId: w.a.providerId }, { provider_id: w.a.providerId }],
      [{ type: 'casino', providerId: w.b.providerId }, { provider_id: w.b.providerId }],
      [{ type: 'studio', groupId: w.a.groupId }, { group_id: w.a.groupId }],
      [{ type: 'studio', groupId: studios[3] }, { group_id: studios[3] }],
    ];
    for (const [scope, where] of accounts) {
      const call = await w.as('support', scope);
      for (const [table, by, order] of SORTED.filter((_s, i) => i % 2 === 0)) {
        const expected = await sqlOrder(table, column(table, by), order, where);
        expect(expected.length).toBeGreaterThan(5);
        const got = await walk(call, table, `playerId=${player}&sortBy=${by}&sortOrder=${order}`, 5);
        expect([scope, table, by, got.ids]).toEqual([scope, table, by, expected]);
        expect([scope, table, got.totals[0]]).toEqual([scope, table, await sqlTotals(table, where)]);
      }
    }
  });

  it("then naming another tenant's casino or studio beside the player finds nothing", async () => {
    const casinoA = await w.as('support', { type: 'casino', providerId: w.a.providerId });
    const studioA = await w.as('support', { type: 'studio', groupId: w.a.groupId });
    for (const [call, other] of [[casinoA, `providerId=${casinos[2]}`], [studioA, `groupId=${studios[2]}`]] as const) {
      for (const table of ['transactions', 'rounds']) {
        const res = await call('GET', `money/${table}?playerId=${player}&${other}`);
        expect([table, other, res.status, res.body.data, res.body.meta.totals.count]).toEqual([table, other, 200, [], 0]);
      }
    }
  });
});

interface PlanNode {
  'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; 'Index Cond'?: string;
  'Actual Rows'?: number; 'Actual Loops'?: number; 'Rows Removed by Filter'?: number; 'Rows Removed by Index Recheck'?: number; Plans?: PlanNode[];
}
const scans = (n: PlanNode): PlanNode[] => [...(n['Relation Name'] ? [n] : []), ...(n.Plans ?? []).flatMap(scans)];
/** How a scan reaches its rows: the index and its condition (a bitmap scan's through its Bitmap Index Scans), or the node type. */
const access = (n: PlanNode): string[] => (n['Node Type'] === 'Bitmap Heap Scan'
  ? (n.Plans ?? []).flatMap(access)
  : [n['Index Name'] ? `${n['Index Name']} ON ${n['Index Cond']}` : n['Node Type']]);

describe('When a player search names no studio', () => {
  it("then the page and the totals read each partition's player index, for the player in every studio, and no one else's rows", async () => {
    await replicated();
    const read = w.p.db.reporting;
    const scopes: OperatorScope[] = [{ type: 'platform' }, { type: 'casino', providerId: w.a.providerId }];
    const filters: LedgerFilter[] = [{ playerId: player }, { playerId: player, amountMin: '10', amountMax: '50' }];
    for (const table of ['transactions', 'rounds'] as const) {
      // The seeded months' partitions (test files share the database: others may hold a few rows of
      // other tests elsewhere), and each one's index on (group_id, player_id, created_at DESC).
      const { rows: parts } = await read.raw(
        `SELECT c.relname AS partition, i.indexname AS index FROM pg_class c
           JOIN pg_indexes i ON i.tablename = c.relname AND i.indexdef LIKE '%(group_id, player_id, created_at DESC)'
          WHERE c.relname = ANY(?) ORDER BY c.relname`,
        [months.map((m) => `${table}_p${m.replace('-', '_')}`)],
      );
      expect(parts.length).toBe(3);
      const theirs = Number((await plain(table, {}).count({ n: '*' }))[0].n);
      for (const scope of scopes) {
        for (const filter of filters) {
          const statements = [
            ...SORTED.filter(([t]) => t === table).map(([, by, order]) => searchPageQuery(read, table, scope, filter, 100, { by, order })),
            liveTotalsQuery(read, table, scope, filter),
          ];
          for (const statement of statements) {
            const { sql, bindings } = statement.toSQL();
            const { rows } = await read.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, bindings as readonly Knex.RawBinding[]);
            const all = scans(rows[0]['QUERY PLAN'][0].Plan).filter((s) => parts.some((p: { partition: string }) => p.partition === s['Relation Name']));
            // The skip scan that finds the table's studios: index-only probes of at most one entry each.
            const probes = all.filter((s) => /^\(*group_id IS NOT NULL\)?( AND \(group_id > s\.v\)\))?$/.test(s['Index Cond'] ?? ''));
            for (const probe of probes) expect([probe['Node Type'], (probe['Actual Rows'] ?? 0) <= 1]).toEqual(['Index Only Scan', true]);
            const seeded = all.filter((s) => !probes.includes(s));
            const how = seeded.map((s) => [s['Relation Name'], access(s)]).sort();
            // Each seeded month only through its player index, with the studios and the player as its condition.
            expect([table, scope.type, filter, how]).toEqual([table, scope.type, filter, parts.map((p: { partition: string; index: string }) => [
              p.partition, [expect.stringMatching(new RegExp(`^${p.index} ON .*group_id = ANY .*player_id = `))],
            ])]);
            const touched = seeded.reduce((n, s) => n + ((s['Actual Rows'] ?? 0) + (s['Rows Removed by Filter'] ?? 0) + (s['Rows Removed by Index Recheck'] ?? 0)) * (s['Actual Loops'] ?? 1), 0);
            expect(touched).toBeLessThanOrEqual(theirs);
          }
        }
      }
    }
  });
});
