import { http, startPlatform, uniqueId, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { authorize, type Caller, type Permission } from '../../services/backoffice/src/domain/access';
import { currentCode } from '../../services/backoffice/src/domain/totp';
import { asOperator, bo, cookieValue, createOperator, signedInOperator, strongPassword, type HttpResult } from '../backoffice';
import { eventually } from '../faults/support/money';
import { betBody, winBody } from '../../services/wallet/test/money-support';
import { ContractChecker } from './support/contract';

/**
 * Contract tests of the back office's API reference (docs/api/backoffice.json): every documented
 * operation answered through the gateway at least once with success and once with an error, each
 * answer held against the document (status, headers, JSON body with no undocumented field, or the
 * documented CSV type). The money views read a real round played through the sandbox casino.
 */
const contract = new ContractChecker(['backoffice']);

describe('the back office reference against the running platform', () => {
  let p: TestPlatform;
  let g: GameWorld;
  let pl: Player;

  type Options = { token?: string; body?: unknown; headers?: Record<string, string> };
  /** One request through the gateway, checked against the reference, its status asserted. */
  const call = async (method: string, path: string, status: number, options: Options = {}) => {
    const url = bo(p, path);
    const res = await http(method, url, options);
    contract.check(method, url, res);
    if (res.status === 200 && res.headers.get('content-type')?.startsWith('text/csv')) expectDocumentedColumns(method, url, res.text);
    expect({ route: `${method} ${path}`, status: res.status, body: res.status === status ? undefined : res.text }).toEqual({ route: `${method} ${path}`, status, body: undefined });
    return res;
  };
  /** A CSV export's header row is the one its documented example shows (a report's columns follow its groupBy). */
  const expectDocumentedColumns = (method: string, url: string, text: string) => {
    const path = new URL(url).pathname;
    if (path.endsWith('/reports.csv')) return;
    const header = (csv: string) => csv.split('\n').find((line) => !line.startsWith('#'));
    const op = (contract.documents.backoffice as { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { example: string }> }> }>> }).paths[path][method.toLowerCase()];
    expect({ path, header: header(text) }).toEqual({ path, header: header(op.responses['200'].content['text/csv'].example) });
  };
  const admin = (method: string, path: string, status: number, body?: unknown) => call(method, path, status, { token: p.adminToken, body });

  beforeAll(async () => {
    // A bet left open for a second is a ROUND_OPEN reconciliation item.
    p = await startPlatform({ services: ['launcher', 'wallet', 'admin', 'backoffice'], env: { RECONCILIATION_OPEN_ROUND_SECONDS: '1' } });
    g = await startGameWorld(p);
    pl = await g.launchPlayer({ balance: 1000 });
  }, 60000);

  afterAll(async () => {
    await g?.sandbox.close();
    await p?.stop();
  });

  it('When a person signs in, reads the session and signs out, then every answer is documented', async () => {
    const op = await createOperator(p, 'support', { type: 'casino', providerId: g.providerId });
    await call('POST', 'auth/sign-in', 401, { body: { email: op.email, password: `${op.password}-wrong` } });
    await call('POST', 'auth/sign-in', 400, { body: { email: op.email } });
    const first = await call('POST', 'auth/sign-in', 200, { body: { email: op.email, password: op.password } });
    expect(first.body.data.next).toBe('enrol');
    await call('POST', 'auth/second-factor', 401, { body: { challenge: first.body.data.challenge, code: '000000' } });
    await call('POST', 'auth/second-factor', 400, { body: { challenge: first.body.data.challenge } });
    const secret: string = first.body.data.enrolment.secret;
    const done = await call('POST', 'auth/second-factor', 200, { body: { challenge: first.body.data.challenge, code: currentCode(secret) } });
    const signed = { sessionId: cookieValue(done.headers.getSetCookie(), 'relay_bo_session')!, csrfToken: done.body.data.csrfToken as string };
    const session = { cookie: `relay_bo_session=${signed.sessionId}` };
    await call('GET', 'session', 200, { headers: session });
    await call('GET', 'session', 403);
    await call('DELETE', 'session', 403, { headers: session }); // no X-CSRF-Token
    await call('DELETE', 'session', 400, { token: p.adminToken }); // a token has no session
    await call('DELETE', 'session', 200, { headers: { ...session, 'x-csrf-token': signed.csrfToken } });
  });

  it('When a platform admin manages accounts, casino API tokens and reads the audit trail, then every answer is documented', async () => {
    const email = `${uniqueId('acct')}@example.test`;
    const body = { email, displayName: 'Contract Person', password: strongPassword(), role: 'finance', scope: { type: 'casino', providerId: g.providerId } };
    await admin('POST', 'accounts', 400, { ...body, password: 'password1234' });
    const created = await admin('POST', 'accounts', 201, body);
    const id: string = created.body.data.accountId;
    const nobody = '00000000-0000-4000-8000-000000000000';
    await admin('GET', 'accounts?page=1&limit=5', 200);
    await admin('GET', 'accounts?limit=0', 400);
    await admin('GET', `accounts/${id}`, 200);
    await admin('GET', `accounts/${nobody}`, 404);
    await admin('PUT', `accounts/${id}`, 200, { displayName: 'Contract Finance', role: 'finance', scope: { type: 'casino', providerId: g.providerId } });
    await admin('PUT', `accounts/${nobody}`, 404, { displayName: 'x', role: 'finance', scope: { type: 'platform' } });
    await admin('POST', `accounts/${id}/disable`, 200);
    await admin('POST', `accounts/${nobody}/disable`, 404);
    await admin('POST', `accounts/${id}/enable`, 200);
    await admin('POST', `accounts/${nobody}/enable`, 404);
    await admin('POST', `accounts/${id}/reset-second-factor`, 200);
    await admin('POST', `accounts/${nobody}/reset-second-factor`, 404);

    const issued = await admin('POST', `casinos/${g.providerId}/api-tokens`, 201, { name: 'contract job' });
    await admin('POST', `casinos/${uniqueId('nobody')}/api-tokens`, 404, { name: 'contract job' });
    await admin('GET', `casinos/${g.providerId}/api-tokens`, 200);
    await call('GET', `casinos/${g.providerId}/api-tokens`, 403, { token: issued.body.data.token });
    await admin('DELETE', `casinos/${g.providerId}/api-tokens/${issued.body.data.tokenId}`, 200);
    await admin('DELETE', `casinos/${g.providerId}/api-tokens/${issued.body.data.tokenId}`, 404);

    await admin('GET', 'audit?action=account.create&limit=2', 200);
    await admin('GET', 'audit?actorType=robot', 400);
    await admin('GET', 'audit/verify', 200);
    await call('GET', 'audit/verify', 403);
    const csv = await admin('GET', `audit.csv?target=${encodeURIComponent(`account/${id}`)}`, 200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    await admin('GET', 'audit.csv?from=yesterday', 400);

    await admin('GET', 'casinos', 200);
    await call('GET', 'casinos', 403, { token: 'cat_not-a-token' });
    await admin('GET', 'game-providers', 200);
    await call('GET', 'game-providers', 403);
  });

  it('When support and finance read and act on the money, then every view, export and refusal is documented', async () => {
    const bet = betBody(g, pl, { amount: 2.5 });
    expect((await g.call('POST', '/api/balance/cash-out', bet)).status).toBe(200);
    const win = winBody(g, pl, bet, { amount: 4.75, appliedMultiplier: 1.9 });
    expect((await g.call('POST', '/api/balance/cash-in', win)).status).toBe(200);
    const open = betBody(g, pl, { amount: 1 });
    expect((await g.call('POST', '/api/balance/cash-out', open)).status).toBe(200);
    const mine = `providerId=${g.providerId}`;

    const found = await admin('GET', `money/transactions?${mine}&limit=1`, 200);
    expect(found.body.meta.totals.count).toBe(3);
    await admin('GET', `money/transactions?${mine}&limit=1&cursor=${encodeURIComponent(found.body.meta.nextCursor)}`, 200);
    await admin('GET', 'money/transactions?status=LOST', 400);
    await admin('GET', `money/transactions.csv?${mine}`, 200);
    await admin('GET', 'money/transactions.csv?amountMin=1.005', 400);
    await admin('GET', `money/rounds?${mine}&status=SETTLED`, 200);
    await admin('GET', 'money/rounds?sortOrder=sideways', 400);
    const byBet = await admin('GET', `money/rounds?${mine}&sortBy=betAmount&sortOrder=asc&limit=1`, 200);
    await admin('GET', `money/rounds?${mine}&sortBy=betAmount&sortOrder=asc&limit=1&cursor=${encodeURIComponent(byBet.body.meta.nextCursor)}`, 200);
    await admin('GET', `money/rounds?${mine}&sortBy=settledAt&limit=1&cursor=${encodeURIComponent(byBet.body.meta.nextCursor)}`, 400);
    await admin('GET', 'money/transactions?sortBy=settledAt', 400);
    await admin('GET', `money/transactions.csv?${mine}&sortBy=amount&sortOrder=desc`, 200);
    await admin('GET', `money/rounds.csv?${mine}`, 200);
    await admin('GET', 'money/rounds.csv?gameId=seven', 400);
    await admin('GET', `money/rounds/${g.providerId}/${bet.roundId}/story`, 200);
    await admin('GET', `money/rounds/${g.providerId}/no-such-round/story`, 404);
    await admin('GET', `money/transactions/${g.providerId}/${win.transactionId}`, 200);
    await admin('GET', `money/transactions/${g.providerId}/no-such-transaction`, 404);

    const item = `money/reconciliation/items/ROUND_OPEN/${g.providerId}/${open.roundId}`;
    // Until it is a second old the round's record answers as closed by the ledger; then it is an OPEN item.
    await eventually(async () => (await http('GET', bo(p, item), { token: p.adminToken })).body?.data?.state === 'OPEN', 10000, 'the open round to become an item');
    await admin('GET', item, 200);
    await admin('GET', `money/reconciliation/items/ROUND_OPEN/${g.providerId}/no-such-round`, 404);
    await admin('GET', `money/reconciliation/items?${mine}&kind=ROUND_OPEN`, 200);
    await admin('GET', 'money/reconciliation/items?kind=LOST_SOCK', 400);
    await admin('GET', `money/reconciliation/items.csv?${mine}`, 200);
    await admin('GET', 'money/reconciliation/items.csv?state=DONE', 400);
    const support = await signedInOperator(p, 'support', { type: 'casino', providerId: g.providerId });
    const as = (method: string, path: string, status: number, body?: unknown) =>
      asOperator(support, method, bo(p, path), { body }).then((res) => {
        contract.check(method, bo(p, path), res);
        expect({ path, status: res.status }).toEqual({ path, status });
        return res;
      });
    await as('POST', `${item}/acknowledge`, 200, { note: 'Asked the studio to settle it' });
    await as('POST', `${item}/acknowledge`, 409, { note: 'again' });
    await as('POST', `${item}/resolve`, 400, {});
    await as('POST', `${item}/resolve`, 200, { note: 'The studio settled it by hand' });
    await admin('POST', `money/reconciliation/items/ROUND_OPEN/${g.providerId}/no-such-round/resolve`, 404, { note: 'x' });

    await admin('GET', `money/flag-thresholds/${g.providerId}`, 200);
    await admin('GET', 'money/flag-thresholds', 200);
    await admin('GET', `money/flag-thresholds/${uniqueId('nobody')}`, 404);
    await admin('PUT', `money/flag-thresholds/${g.providerId}`, 200, { multiplierOver: 100, payoutOver: { EUR: 4, '*': 1000 } });
    await admin('PUT', `money/flag-thresholds/${g.providerId}`, 400, { multiplierOver: 100, payoutOver: { EUR: 4.001 } });
    const flagged = await admin('GET', `money/flagged-wins?${mine}`, 200);
    expect(flagged.body.data.map((w: { transactionId: string }) => w.transactionId)).toEqual([win.transactionId]);
    await admin('GET', 'money/flagged-wins?state=MAYBE', 400);
    await admin('GET', `money/flagged-wins.csv?${mine}`, 200);
    await admin('GET', 'money/flagged-wins.csv?from=last-week', 400);
    await admin('POST', `money/flagged-wins/${g.providerId}/${win.transactionId}/review`, 200, { note: 'A fair win' });
    await admin('POST', `money/flagged-wins/${g.providerId}/${win.transactionId}/review`, 409, { note: 'again' });

    await admin('GET', `money/reports?${mine}&groupBy=day,casino,game`, 200);
    await admin('GET', 'money/reports?groupBy=planet', 400);
    await admin('GET', 'money/wallet-health', 200);
    await admin('GET', 'money/wallet-health?window=week', 400);
    await admin('GET', `money/reports.csv?${mine}&groupBy=studio`, 200);
    await call('GET', 'money/reports.csv', 403, { headers: { cookie: `relay_bo_session=${support.sessionId}` } }); // support reads no reports
    await call('GET', 'money/flag-thresholds', 403, { headers: { cookie: `relay_bo_session=${support.sessionId}` } }); // platform admins only
  });

  it('When a casino API token creates, reads, lists and cancels a free-round award, then every answer is documented', async () => {
    const currency = { minBet: 0.1, maxBet: 50, defaultBet: 1, betSuggestions: [1], maxWin: 1000, isRoundable: false, isDefault: true };
    expect((await http('PUT', `${p.baseUrl}/admin/v1/casinos/${g.providerId}/games/${g.gameId}/currencies/EUR`, { token: p.adminToken, body: currency })).status).toBe(200);
    const issued = await admin('POST', `casinos/${g.providerId}/api-tokens`, 201, { name: 'bonus engine' });
    const token: string = issued.body.data.token;
    const asCasino = (method: string, path: string, status: number, body?: unknown) => call(method, path, status, { token, body });
    const award = { awardId: uniqueId('award'), playerId: pl.playerId, currency: 'EUR', gameIds: [g.gameId], rounds: 5, betValue: 1, startsAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 86_400_000).toISOString() };
    const awards = `casinos/${g.providerId}/free-rounds`;
    await asCasino('POST', awards, 201, award);
    await asCasino('POST', awards, 200, award);
    await asCasino('POST', awards, 409, { ...award, rounds: 6 });
    await asCasino('POST', awards, 400, { ...award, awardId: uniqueId('award'), betValue: 99 });
    await asCasino('GET', `${awards}/${award.awardId}`, 200);
    await asCasino('GET', `${awards}/no-such-award`, 404);
    await asCasino('GET', `free-rounds?playerId=${pl.playerId}&state=ACTIVE`, 200);
    await asCasino('GET', 'free-rounds?state=SOMETIMES', 400);
    await asCasino('POST', `${awards}/${award.awardId}/cancel`, 200);
    await asCasino('POST', `${awards}/no-such-award/cancel`, 404);
  });

  it('When each documented operation is called by callers its permission does and does not grant, then the document says who may call it truly', async () => {
    const nobody = '00000000-0000-4000-8000-000000000000';
    const callers: { label: string; caller: Caller; send: (method: string, url: string, body: unknown) => Promise<HttpResult> }[] = [];
    for (const [role, scope] of [['support', { type: 'platform' }], ['finance', { type: 'casino', providerId: g.providerId }], ['admin', { type: 'studio', groupId: g.groupId }]] as const) {
      const op = await signedInOperator(p, role, scope);
      callers.push({ label: `${scope.type} ${role}`, caller: { actorType: 'operator', actorId: op.accountId, role, scope }, send: (method, url, body) => asOperator(op, method, url, { body }) });
    }
    const issued = await http('POST', bo(p, `casinos/${g.providerId}/api-tokens`), { token: p.adminToken, body: { name: 'roles check' } });
    const token: string = issued.body.data.token;
    callers.push({
      label: 'casino API token',
      caller: { actorType: 'casino-token', actorId: issued.body.data.tokenId, role: 'support', scope: { type: 'casino', providerId: g.providerId } },
      send: (method, url, body) => http(method, url, { token, body }),
    });
    type Documented = { description: string; requestBody?: { content: Record<string, { example?: unknown }> } };
    const paths = (contract.documents.backoffice as { paths: Record<string, Record<string, Documented>> }).paths;
    const wrong: string[] = [];
    let checked = 0;
    for (const [template, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(item)) {
        const permission = /\(permission `([a-z:-]+)`\)/.exec(op.description)?.[1] as Permission | undefined;
        if (!permission) continue;
        const url = `${p.baseUrl}${template.replace(/\{(accountId|tokenId)\}/g, nobody).replace('{kind}', 'ROUND_OPEN').replace(/\{[^}]+\}/g, 'x')}`;
        const body = op.requestBody?.content['application/json']?.example;
        for (const { label, caller, send } of callers) {
          let granted = true;
          try {
            authorize(caller, permission);
          } catch {
            granted = false;
          }
          const res = await send(method.toUpperCase(), url, body);
          const refused = res.status === 403 && res.body?.error === 'PERMISSION_DENIED';
          if (refused === granted) wrong.push(`${method.toUpperCase()} ${template} as ${label}: ${permission} ${granted ? 'grants' : 'refuses'} it, the route answered ${res.status} ${res.text.slice(0, 120)}`);
          checked += 1;
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('When the suite is done, then every documented back-office operation was seen with a success and an error answer', () => {
    expect(contract.missing()).toEqual([]);
  });
});
