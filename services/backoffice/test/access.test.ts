import { randomUUID } from 'node:crypto';
import { http, startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';
import { provisionWorld, type World } from '../../../test/provision';
import { asOperator, bo, signedInOperator, strongPassword, type SignedInOperator } from '../../../test/backoffice';

/**
 * Every back-office route and every admin route, called by every kind of caller: each role in
 * each scope, a casino API token, the ADMIN_TOKEN and nobody. What a role or scope does not
 * allow is refused before anything is read; what it allows is filtered to its scope.
 */
type CallerName = string;
interface Caller {
  name: CallerName;
  call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }>;
  platformAdmin: boolean;
  signedIn: boolean;
  sees: { casinos: string[] | 'all'; groups: string[] | 'all' };
}

// Every caller against every route, one request at a time: a minute or more on a loaded CI machine.
jest.setTimeout(180_000);

let p: TestPlatform;
let a: World;
let b: World;
const callers: Caller[] = [];

beforeAll(async () => {
  p = await startPlatform({ services: ['admin', 'backoffice'] });
  [a, b] = [await provisionWorld(p), await provisionWorld(p)];
  const session = (op: SignedInOperator) => (method: string, url: string, body?: unknown) => asOperator(op, method, url, { body });
  const scopes = [
    { label: 'platform', scope: { type: 'platform' } as const, sees: { casinos: 'all' as const, groups: 'all' as const } },
    { label: 'casino A', scope: { type: 'casino', providerId: a.providerId } as const, sees: { casinos: [a.providerId], groups: [] } },
    { label: 'studio A', scope: { type: 'studio', groupId: a.groupId } as const, sees: { casinos: [], groups: [a.groupId] } },
  ];
  for (const s of scopes) {
    for (const role of ['admin', 'support', 'finance'] as const) {
      const op = await signedInOperator(p, role, s.scope);
      callers.push({ name: `${s.label} ${role}`, call: session(op), platformAdmin: s.label === 'platform' && role === 'admin', signedIn: true, sees: s.sees });
    }
  }
  const issued = await http('POST', bo(p, `casinos/${a.providerId}/api-tokens`), { token: p.adminToken, body: { name: 'reconciliation job' } });
  expect(issued.status).toBe(201);
  const casinoToken: string = issued.body.data.token;
  callers.push({ name: 'casino A API token', call: (m, u, body) => http(m, u, { token: casinoToken, body }), platformAdmin: false, signedIn: true, sees: { casinos: [a.providerId], groups: [] } });
  callers.push({ name: 'ADMIN_TOKEN', call: (m, u, body) => http(m, u, { token: p.adminToken, body }), platformAdmin: true, signedIn: true, sees: { casinos: 'all', groups: 'all' } });
  callers.push({ name: 'nobody', call: (m, u, body) => http(m, u, { body }), platformAdmin: false, signedIn: false, sees: { casinos: [], groups: [] } });
}, 60000);
afterAll(async () => {
  await p?.stop();
});

const newAccount = () => ({ email: `${uniqueId('acc')}@example.test`, displayName: 'New person', password: strongPassword(), role: 'support', scope: { type: 'casino', providerId: a.providerId } });

/** Platform-admin routes of the back office; ids that do not exist, so an allowed call changes nothing it should not. */
const PLATFORM_ADMIN_ROUTES: [string, () => string, (() => unknown)?][] = [
  ['POST', () => 'accounts', newAccount],
  ['GET', () => 'accounts'],
  ['GET', () => `accounts/${randomUUID()}`],
  ['PUT', () => `accounts/${randomUUID()}`, () => ({ displayName: 'Renamed', role: 'finance', scope: { type: 'platform' } })],
  ['POST', () => `accounts/${randomUUID()}/disable`],
  ['POST', () => `accounts/${randomUUID()}/enable`],
  ['POST', () => `accounts/${randomUUID()}/reset-second-factor`],
  ['POST', () => `casinos/${b.providerId}/api-tokens`, () => ({ name: 'table test' })],
  ['GET', () => `casinos/${a.providerId}/api-tokens`],
  ['DELETE', () => `casinos/${a.providerId}/api-tokens/${randomUUID()}`],
  ['GET', () => 'audit'],
  ['GET', () => 'audit/verify'],
  ['GET', () => 'audit.csv'],
];

const ADMIN_API_ROUTES: [string, () => string, (() => unknown)?][] = [
  ['GET', () => 'casinos'],
  ['GET', () => `casinos/${a.providerId}`],
  ['PUT', () => `game-providers/${uniqueId('grp')}`, () => ({ name: 'Created in the access table' })],
  ['GET', () => `game-providers/${a.groupId}`],
  ['GET', () => `games/${a.gameId}`],
  ['GET', () => 'game-providers'],
  ['GET', () => `games?groupId=${a.groupId}`],
  ['GET', () => `casinos/${a.providerId}/games/${a.gameId}/currencies`],
  ['DELETE', () => `casinos/${a.providerId}/games/${a.gameId}/currencies/XTS`],
];

describe('When each caller calls each platform-admin route of the back office', () => {
  it('then only platform admins and the ADMIN_TOKEN get past authorization; the rest get 403 and nobody gets AUTHENTICATION_FAILED', async () => {
    const outcomes: string[] = [];
    for (const caller of callers) {
      for (const [method, path, body] of PLATFORM_ADMIN_ROUTES) {
        const res = await caller.call(method, bo(p, path()), body?.());
        const code = res.body?.error;
        const expected = !caller.signedIn ? 'AUTHENTICATION_FAILED' : caller.platformAdmin ? 'allowed' : 'PERMISSION_DENIED';
        const got = res.status === 403 ? code : res.status < 500 ? 'allowed' : `status ${res.status}`;
        if (got !== expected) outcomes.push(`${caller.name} ${method} ${path()}: expected ${expected}, got ${res.status} ${code}`);
      }
    }
    expect(outcomes).toEqual([]);
   }, 90000);
});

describe('When each caller lists casinos and game providers', () => {
  it('then each sees exactly its scope, and no secret', async () => {
    for (const caller of callers.filter((c) => c.signedIn)) {
      const casinos = await caller.call('GET', bo(p, 'casinos'));
      const groups = await caller.call('GET', bo(p, 'game-providers'));
      expect([caller.name, casinos.status, groups.status]).toEqual([caller.name, 200, 200]);
      const casinoIds = casinos.body.data.map((c: any) => c.providerId);
      const groupIds = groups.body.data.map((g: any) => g.groupId);
      if (caller.sees.casinos === 'all') expect(casinoIds).toEqual(expect.arrayContaining([a.providerId, b.providerId]));
      else expect([caller.name, casinoIds]).toEqual([caller.name, caller.sees.casinos]);
      if (caller.sees.groups === 'all') expect(groupIds).toEqual(expect.arrayContaining([a.groupId, b.groupId]));
      else expect([caller.name, groupIds]).toEqual([caller.name, caller.sees.groups]);
      for (const c of casinos.body.data) expect(Object.keys(c).sort()).toEqual(['createdAt', 'name', 'providerId', 'status']);
    }
    const nobody = callers.find((c) => !c.signedIn)!;
    expect((await nobody.call('GET', bo(p, 'casinos'))).status).toBe(403);
  });
});

describe('When each caller calls the admin API', () => {
  it('then a signed-in platform admin and the ADMIN_TOKEN are served; other accounts get PERMISSION_DENIED, a casino token and nobody AUTHENTICATION_FAILED', async () => {
    const outcomes: string[] = [];
    for (const caller of callers) {
      for (const [method, path, body] of ADMIN_API_ROUTES) {
        const res = await caller.call(method, `${p.baseUrl}/admin/v1/${path()}`, body?.());
        const code = res.body?.error;
        const expected = caller.platformAdmin ? 'allowed' : caller.name.includes('API token') || !caller.signedIn ? 'AUTHENTICATION_FAILED' : 'PERMISSION_DENIED';
        const got = res.status === 403 ? code : res.status < 500 ? 'allowed' : `status ${res.status}`;
        if (got !== expected) outcomes.push(`${caller.name} ${method} ${path()}: expected ${expected}, got ${res.status} ${code}`);
      }
    }
    expect(outcomes).toEqual([]);
   }, 90000);

  it('then a platform admin session without the CSRF token is refused on an admin write', async () => {
    const admin = await signedInOperator(p, 'admin', { type: 'platform' });
    const groupId = uniqueId('grp');
    const res = await asOperator(admin, 'PUT', `${p.baseUrl}/admin/v1/game-providers/${groupId}`, { body: { name: 'No CSRF' }, csrf: null });
    expect([res.status, res.body.error]).toEqual([403, 'CSRF_TOKEN_INVALID']);
    expect(await p.db.primary('game_providers').where({ group_id: groupId }).first()).toBeUndefined();
  });
});

/**
 * The money views (issue 19): what each role may call. `read` is every signed-in caller;
 * `reports` finance and admins; `act` admins and support (people, not API tokens); `review`
 * admins and finance (people); `thresholds` platform admins. Ids that do not exist, so an
 * allowed write finds nothing (404) and changes nothing. Lists and exports name casino A: the
 * grant is checked before anything is read, and a platform caller then does not stream the other
 * test files' data (the export test writes 100,000 rows into the same database).
 */
type MoneyGrant = 'read' | 'reports' | 'act' | 'review' | 'thresholds';
const MONEY_ROUTES: [MoneyGrant, string, () => string, (() => unknown)?][] = [
  ['read', 'GET', () => `money/transactions?providerId=${a.providerId}`],
  ['read', 'GET', () => `money/transactions.csv?providerId=${a.providerId}`],
  ['read', 'GET', () => `money/rounds?providerId=${a.providerId}`],
  ['read', 'GET', () => `money/rounds.csv?providerId=${a.providerId}`],
  ['read', 'GET', () => `money/rounds/${a.providerId}/${uniqueId('round')}/story`],
  ['read', 'GET', () => `money/transactions/${a.providerId}/${uniqueId('tx')}`],
  ['read', 'GET', () => `money/reconciliation/items?providerId=${a.providerId}`],
  ['read', 'GET', () => `money/reconciliation/items.csv?providerId=${a.providerId}`],
  ['read', 'GET', () => `money/reconciliation/items/CREDIT_OWED/${a.providerId}/${uniqueId('tx')}`],
  ['read', 'GET', () => `money/flagged-wins?providerId=${a.providerId}`],
  ['read', 'GET', () => `money/flagged-wins.csv?providerId=${a.providerId}`],
  ['read', 'GET', () => `money/wallet-health?providerId=${a.providerId}`],
  ['reports', 'GET', () => `money/reports?providerId=${a.providerId}`],
  ['reports', 'GET', () => `money/reports.csv?providerId=${a.providerId}`],
  ['act', 'POST', () => `money/reconciliation/items/CREDIT_OWED/${a.providerId}/${uniqueId('tx')}/acknowledge`, () => ({ note: 'table' })],
  ['act', 'POST', () => `money/reconciliation/items/ROUND_OPEN/${a.providerId}/${uniqueId('round')}/resolve`, () => ({ note: 'table' })],
  ['review', 'POST', () => `money/flagged-wins/${a.providerId}/${uniqueId('tx')}/review`, () => ({ note: 'table' })],
  ['read', 'GET', () => `money/rounds?providerId=${a.providerId}&sortBy=payoutAmount&sortOrder=asc`],
  ['read', 'GET', () => `money/transactions.csv?providerId=${a.providerId}&sortBy=amount`],
  ['thresholds', 'GET', () => 'money/flag-thresholds'],
  ['thresholds', 'GET', () => `money/flag-thresholds/${b.providerId}`],
  ['thresholds', 'PUT', () => `money/flag-thresholds/${b.providerId}`, () => ({ multiplierOver: 500, payoutOver: { '*': 10000 } })],
];

function moneyGrant(caller: Caller, grant: MoneyGrant): boolean {
  const role = caller.name.endsWith('API token') ? 'token' : caller.name === 'ADMIN_TOKEN' ? 'admin' : caller.name.split(' ').pop();
  switch (grant) {
    case 'read':
      return true;
    case 'reports':
      return role === 'admin' || role === 'finance';
    case 'act':
      return role === 'admin' || role === 'support';
    case 'review':
      return role === 'admin' || role === 'finance';
    case 'thresholds':
      return caller.platformAdmin;
  }
}

describe('When each caller calls each money route of the back office', () => {
  it('then each role gets exactly its grants, the rest PERMISSION_DENIED, and nobody AUTHENTICATION_FAILED', async () => {
    const outcomes: string[] = [];
    for (const caller of callers) {
      for (const [grant, method, path, body] of MONEY_ROUTES) {
        const res = await caller.call(method, bo(p, path()), body?.());
        const code = res.body?.error;
        const expected = !caller.signedIn ? 'AUTHENTICATION_FAILED' : moneyGrant(caller, grant) ? 'allowed' : 'PERMISSION_DENIED';
        const got = res.status === 403 ? code : res.status < 500 ? 'allowed' : `status ${res.status}`;
        if (got !== expected) outcomes.push(`${caller.name} ${method} ${path()}: expected ${expected}, got ${res.status} ${code}`);
      }
    }
    expect(outcomes).toEqual([]);
   }, 90000);

  it('then every list shows each caller only the records of its scope', async () => {
    // One bet that failed after the casino may have taken it (a queue item) and one large paid
    // win (a flagged win) for each tenant, written straight into the ledger.
    for (const w of [a, b]) {
      const base = { provider_id: w.providerId, group_id: w.groupId, game_id: w.gameId, player_id: 'pl', session_id: 's', currency: 'EUR', language: 'en' };
      const roundId = uniqueId('round');
      const betId = uniqueId('bet');
      await p.db.primary('transactions').insert([
        { ...base, id: randomUUID(), round_id: roundId, transaction_id: betId, category: 'CASH_OUT', status: 'FAILED', error_code: 'CASHOUT_FAILED', amount: '5.00', request_fingerprint: 'x' },
        { ...base, id: randomUUID(), round_id: uniqueId('round'), transaction_id: uniqueId('win'), category: 'CASH_IN', status: 'SUCCESS', amount: '20000.00', applied_multiplier: 2, request_fingerprint: 'x' },
      ]);
      await p.db.primary('rounds').insert({ ...base, id: randomUUID(), round_id: roundId, status: 'OPEN', bet_amount: '5.00', bet_transaction_id: betId, opened_at: new Date() });
    }
    const LISTS = ['money/transactions?limit=500', 'money/rounds?limit=500', 'money/reconciliation/items?limit=500', 'money/flagged-wins?limit=500', 'money/reports?groupBy=casino,studio&limit=500'];
    const problems: string[] = [];
    for (const caller of callers.filter((c) => c.signedIn)) {
      for (const list of LISTS) {
        const res = await caller.call('GET', bo(p, list));
        if (res.status === 403) continue; // a role without reports; checked by the table above
        const rows: any[] = res.body.data;
        const casinos = new Set(rows.map((r) => r.providerId));
        const groups = new Set(rows.map((r) => r.groupId));
        // The platform sees every casino: both tenants, each asked for by its casino (other test files
        // share this database, and their older rows can fill a first page of 500 oldest-first items).
        const seen = async (w: typeof a) => ((await caller.call('GET', bo(p, `${list}&providerId=${w.providerId}`))).body.data as any[]).some((r) => r.providerId === w.providerId);
        const ok = caller.sees.casinos === 'all'
          ? (await seen(a)) && (await seen(b))
          : caller.sees.casinos.length
            ? [...casinos].every((c) => caller.sees.casinos.includes(c)) && casinos.has(a.providerId)
            : [...groups].every((g) => (caller.sees.groups as string[]).includes(g)) && groups.has(a.groupId);
        if (!ok) problems.push(`${caller.name} ${list}: casinos ${[...casinos].join(' ')} groups ${[...groups].join(' ')}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('When the back-office service is called directly, bypassing the gateway', () => {
  it('then everything but health is refused, even with a forged session cookie', async () => {
    const direct = p.services.backoffice!.url;
    for (const path of ['/backoffice/v1/accounts', '/backoffice/v1/auth/sign-in', '/backoffice/v1/session']) {
      const res = await http('GET', `${direct}${path}`, { headers: { cookie: 'relay_bo_session=aaaaaaaaaaaaaaaaaaaaaaaaaaaaa' } });
      expect([path, res.status, res.body.error]).toEqual([path, 403, 'AUTHENTICATION_FAILED']);
    }
    expect((await http('GET', `${direct}/healthz`)).status).toBe(200);
  });
});
