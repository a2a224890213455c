import { Writable } from 'node:stream';
import { createLaunchToken, type Fault } from '@relay/casino-sandbox';
import { http, startPlatform, uniqueId, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { adminGet, adminPut } from '../provision';
import { betBody, winBody } from '../../services/wallet/test/money-support';
import { scenarioIt, Tally } from '../faults/support/reliability';
import { startEchoCasino, type EchoCasino } from './support/echo-casino';
import { GAME_ROUTES, makeTarget, type Target } from './support/routes';
import { leakedSecrets, playerSecrets, secretsOf, STACK_TRACE, type NamedSecret } from './support/secrets';
import { asOperator, bo, createOperator, signInFirstTime } from '../backoffice';

/**
 * A sweep for secrets over every response body (and header) and every log line of a run that
 * drives every route: happy paths, refusals, casino faults, and a careless casino that echoes the
 * player's wallet token and the request signature back. Every service logs at trace level into
 * memory (startPlatform's logDestination). Only the admin API's one-time answers that create a
 * secret (casino creation, token issue) may show one; those are made by provisioning, not swept.
 */
const tally = new Tally(
  'secrets-sweep',
  'No secret in any response or log line',
  'test/security/secrets-sweep.test.ts',
  "Drives every game route (own records, another provider's records, no token), launch (success, refused, HTML), admin reads and replaces, the back office's money views (search, every round story and transaction detail with its attempts and casino answers, reconciliation queue, flagged wins, reports, CSV exports), health and metrics, every sandbox fault and a careless casino that echoes the wallet token and request signature in its success and error bodies; then searches every response body and header, every log line of every service at trace level, and the audit text stored in the database for any wallet token, wallet secret, launch key, launch token, provider token or the admin token; then signs people in to the back office (enrolment, TOTP, recovery codes, refused codes, wrong and weak passwords), reads and writes through it and the admin API with a session, uses and revokes a casino API token, resets a second factor and signs out, and searches every answer, log line, audit entry and account row for a password, TOTP secret, recovery code, session id, CSRF token, sign-in challenge or casino API token. The only responses allowed to hold a secret are the one-time answers that create it.",
);
const scenario = scenarioIt(tally);

describe('secrets never leave the platform', () => {
  let p: TestPlatform;
  let a: Target;
  let b: Target;
  let e: GameWorld;
  let echo: EchoCasino;
  const lines: string[] = [];
  const responses: { what: string; text: string }[] = [];
  const players: Player[] = [];
  const launchTokens: NamedSecret[] = [];
  const backofficeSecrets: NamedSecret[] = [];

  async function send(what: string, method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    const res = await http(method, `${p.baseUrl}${path}`, options);
    responses.push({ what: `${what}: ${method} ${path} -> ${res.status}`, text: `${res.text}\n${JSON.stringify(Object.fromEntries(res.headers))}` });
    tally.request();
    return res;
  }

  async function launch(world: GameWorld, opts: { key?: string; jti?: string; accept?: string } = {}): Promise<Player | null> {
    const playerId = uniqueId('player');
    const walletToken = uniqueId('wallet-token');
    world.sandbox.addPlayer({ providerId: world.providerId, playerId, walletToken, balance: 100 });
    const token = await createLaunchToken({ launchKey: opts.key ?? world.launchKey, providerId: world.providerId, playerId, walletToken, ...(opts.jti ? { jti: opts.jti } : {}) });
    launchTokens.push({ name: `launch token of ${playerId}`, value: token });
    const player = { playerId, walletToken, currency: 'EUR', sessionId: '' };
    players.push(player);
    const query = new URLSearchParams({ token, providerId: world.providerId, gameId: String(world.gameId), currency: 'EUR', language: 'en', backtoHome: 'https://casino.example/lobby' });
    const res = await send('launch', 'GET', `/launch?${query}`, { headers: opts.accept ? { accept: opts.accept } : {} });
    if (res.status !== 302) return null;
    player.sessionId = new URL(res.headers.get('location')!).searchParams.get('sessionId')!;
    return player;
  }

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    // 1 s: makeTarget's ordinary casino calls must answer in time on a loaded machine; the delay fault stays well over it.
    p = await startPlatform({ logDestination: sink, env: { CASINO_TIMEOUT_MS: '1000' } });
    echo = await startEchoCasino();
    const worldA = await startGameWorld(p);
    const worldB = await startGameWorld(p, { sandbox: worldA.sandbox });
    e = await startGameWorld(p, { sandbox: worldA.sandbox, walletUrl: echo.walletUrl });
    [a, b] = await Promise.all([makeTarget(worldA), makeTarget(worldB)]);
    players.push(a.player, b.player);
  }, 60000);
  afterAll(async () => {
    tally.write();
    await p?.stop();
    await a?.world.sandbox.close();
    await echo?.close();
  });

  scenario('When every route is driven through its answers, refusals and casino faults, then no response body or header holds a secret', async () => {
    for (const path of ['/healthz', '/readyz']) await send('health', 'GET', path);
    await send('health', 'GET', '/metrics', { token: p.adminToken });
    for (const path of ['casinos?limit=500', `casinos/${a.world.providerId}`, 'game-providers?limit=500', `game-providers/${a.world.groupId}`, 'games?limit=500', `games/${a.world.gameId}`]) {
      await send('admin read', 'GET', `/admin/v1/${path}`, { token: p.adminToken });
    }
    await send('admin replace', 'PUT', `/admin/v1/casinos/${a.world.providerId}`, { token: p.adminToken, body: { name: 'Casino A', walletUrl: a.world.walletUrl } });

    // Launch: accepted, refused (wrong key, reused jti), and the HTML error page.
    expect(await launch(a.world)).not.toBeNull();
    const jti = uniqueId('jti');
    expect(await launch(a.world, { jti })).not.toBeNull();
    expect(await launch(a.world, { jti })).toBeNull();
    expect(await launch(a.world, { key: b.world.launchKey })).toBeNull();
    expect(await launch(a.world, { key: b.world.launchKey, accept: 'text/html' })).toBeNull();

    for (const route of GAME_ROUTES) {
      await send('own records', route.method, route.path(a), { token: a.world.providerToken, body: route.body?.(a) });
      await send("another provider's records", route.method, route.path(b), { token: a.world.providerToken, body: route.body?.(b) });
      await send('no token', route.method, route.path(a), { body: route.body?.(a) });
    }

    // Every sandbox fault on a debit and a credit, each repeated once the casino behaves.
    const faults: Fault[] = [
      { kind: 'insufficientFunds' },
      { kind: 'tokenExpired' },
      { kind: 'error', status: 503, applyFirst: true },
      { kind: 'malformed', body: 'not-json' },
      { kind: 'delay', ms: 1300, applyFirst: true },
      { kind: 'reset' },
    ];
    const pl = (await launch(a.world))!;
    for (const fault of faults) {
      const bet = betBody(a.world, pl, { amount: 1 });
      a.world.sandbox.setFault({ providerId: a.world.providerId, playerId: pl.playerId }, fault, 1);
      await send(`fault ${fault.kind}`, 'POST', '/api/balance/cash-out', { token: a.world.providerToken, body: bet });
      await send(`repeat after ${fault.kind}`, 'POST', '/api/balance/cash-out', { token: a.world.providerToken, body: bet });
      const win = winBody(a.world, pl, bet, { amount: 2 });
      a.world.sandbox.setFault({ providerId: a.world.providerId, playerId: pl.playerId }, fault, 1);
      await send(`fault ${fault.kind}`, 'POST', '/api/balance/cash-in', { token: a.world.providerToken, body: win });
      await send(`repeat after ${fault.kind}`, 'POST', '/api/balance/cash-in/retry', { token: a.world.providerToken, body: win });
      tally.fault(fault.kind, 2);
    }

    // The careless casino: the wallet token and the signature in success and error bodies.
    const ep = (await launch(e))!;
    const token = e.providerToken;
    const small = betBody(e, ep, { amount: 1 });
    const big = betBody(e, ep, { amount: 10 });
    await send('echo validation', 'GET', `/api/v1/sessions/${ep.sessionId}?gameId=${e.gameId}`, { token });
    await send('echo balance', 'GET', `/api/account?sessionId=${ep.sessionId}`, { token });
    await send('echo debit ok', 'POST', '/api/balance/cash-out', { token, body: small });
    await send('echo debit 500', 'POST', '/api/balance/cash-out', { token, body: big });
    await send('echo credit ok', 'POST', '/api/balance/cash-in', { token, body: winBody(e, ep, small, { amount: 0, reason: 'BET_LOST', appliedMultiplier: 0 }) });
    await send('echo credit 400', 'POST', '/api/balance/cash-in/retry', { token, body: winBody(e, ep, small, { amount: 5 }) });
    await send('echo round-ended 403', 'POST', '/api/round-ended', { token, body: { roundId: small.roundId, providerIds: [e.providerId] } });
    expect(echo.calls).toBeGreaterThanOrEqual(7);
    tally.fault('casino echoing the wallet token and signature', 7);

    // Reports read back everything the faults and the careless casino left behind.
    for (const world of [a.world, e]) {
      for (const list of ['/api/v1/rounds?limit=100', '/api/v1/transactions?limit=100']) {
        const res = await send('report', 'GET', list, { token: world.providerToken });
        for (const t of res.body.data) {
          const detail = t.transactionId ? `/api/v1/transactions/${t.providerId}/${t.transactionId}` : `/api/v1/rounds/${t.providerId}/${t.roundId}`;
          await send('report detail', 'GET', detail, { token: world.providerToken });
        }
      }
      await send('catalog', 'GET', '/api/v1/provider-catalog', { token: world.providerToken });
    }
    // The back office's money views show every attempt and the casino's answers: the same records, swept again.
    for (const world of [a.world, e]) {
      const found = await send('back office search', 'GET', `/backoffice/v1/money/transactions?providerId=${world.providerId}&limit=500`, { token: p.adminToken });
      expect(found.body.data.length).toBeGreaterThan(0);
      for (const t of found.body.data) {
        await send('back office story', 'GET', `/backoffice/v1/money/rounds/${t.providerId}/${t.roundId}/story`, { token: p.adminToken });
        await send('back office transaction', 'GET', `/backoffice/v1/money/transactions/${t.providerId}/${t.transactionId}`, { token: p.adminToken });
      }
      const views = ['money/transactions.csv', 'money/rounds.csv', 'money/reconciliation/items?limit=500', 'money/reconciliation/items.csv', 'money/flagged-wins', 'money/reports?groupBy=casino'];
      for (const view of views) await send('back office money view', 'GET', `/backoffice/v1/${view}${view.includes('?') ? '&' : '?'}providerId=${world.providerId}`, { token: p.adminToken });
    }

    const secrets = allSecrets();
    const leaks = responses.flatMap((r) => leakedSecrets(r.text, secrets).map((s) => `${r.what} shows ${s}`));
    expect(leaks).toEqual([]);
    const traces = responses.filter((r) => STACK_TRACE.test(r.text.split('\n')[0])).map((r) => r.what);
    expect(traces).toEqual([]);
    tally.check('response bodies and headers searched', responses.length);
  });

  scenario('When people sign in and use the back office, then no answer but the one that creates it shows a password, TOTP secret, recovery code, session id, challenge or casino API token', async () => {
    const admin = await createOperator(p, 'admin', { type: 'platform' });
    const support = await createOperator(p, 'support', { type: 'casino', providerId: a.world.providerId });
    backofficeSecrets.push({ name: 'password of the admin', value: admin.password }, { name: 'password of support', value: support.password });
    // The answers that create a secret (enrolment, sign-in, token issue) are not swept, as with provisioning.
    const signedIn = await signInFirstTime(p, admin);
    const supportIn = await signInFirstTime(p, support);
    for (const op of [signedIn, supportIn]) {
      backofficeSecrets.push(
        { name: `TOTP secret of ${op.email}`, value: op.totpSecret },
        { name: `session id of ${op.email}`, value: op.sessionId },
        { name: `CSRF token of ${op.email}`, value: op.csrfToken },
        ...op.recoveryCodes.map((code, i) => ({ name: `recovery code ${i} of ${op.email}`, value: code })),
      );
    }
    const issued = await http('POST', bo(p, `casinos/${a.world.providerId}/api-tokens`), { token: p.adminToken, body: { name: 'sweep' } });
    const casinoToken: string = issued.body.data.token;
    backofficeSecrets.push({ name: 'casino API token', value: casinoToken });

    const challenge = await http('POST', bo(p, 'auth/sign-in'), { body: { email: admin.email, password: admin.password } });
    backofficeSecrets.push({ name: 'sign-in challenge', value: challenge.body.data.challenge });
    await send('second factor refused', 'POST', '/backoffice/v1/auth/second-factor', { body: { challenge: challenge.body.data.challenge, code: '000000' } });
    await send('wrong password', 'POST', '/backoffice/v1/auth/sign-in', { body: { email: admin.email, password: `${admin.password}x` } });
    await send('weak password refused', 'POST', '/backoffice/v1/accounts', { token: p.adminToken, body: { email: `weak-${admin.email}`, displayName: 'W', password: 'password1234', role: 'support', scope: { type: 'platform' } } });
    const asAdmin = (what: string, method: string, path: string, body?: unknown) =>
      asOperator(signedIn, method, `${p.baseUrl}${path}`, { body }).then((res) => {
        responses.push({ what: `${what}: ${method} ${path} -> ${res.status}`, text: `${res.text}\n${JSON.stringify(Object.fromEntries(res.headers))}` });
        tally.request();
        return res;
      });
    for (const path of ['session', 'accounts', `accounts/${support.accountId}`, 'casinos', 'game-providers', `casinos/${a.world.providerId}/api-tokens`, 'audit?limit=500', 'audit.csv', 'audit/verify']) {
      await asAdmin('back office read', 'GET', `/backoffice/v1/${path}`);
    }
    await asAdmin('admin write by a person', 'PUT', `/admin/v1/game-providers/${a.world.groupId}`, { name: 'Renamed by a person' });
    await asAdmin('reset second factor', 'POST', `/backoffice/v1/accounts/${support.accountId}/reset-second-factor`);
    await send('casino token read', 'GET', '/backoffice/v1/casinos', { token: casinoToken });
    await send('casino token refused', 'GET', '/backoffice/v1/accounts', { token: casinoToken });
    await send('revoke casino token', 'DELETE', `/backoffice/v1/casinos/${a.world.providerId}/api-tokens/${issued.body.data.tokenId}`, { token: p.adminToken });
    await send('session of a reset account', 'GET', '/backoffice/v1/session', { headers: { cookie: `relay_bo_session=${supportIn.sessionId}` } });
    await asAdmin('sign out', 'DELETE', '/backoffice/v1/session');
    await send('session after sign-out', 'GET', '/backoffice/v1/session', { headers: { cookie: `relay_bo_session=${signedIn.sessionId}` } });

    const leaks = responses.flatMap((r) => leakedSecrets(r.text, backofficeSecrets).map((s) => `${r.what} shows ${s}`));
    expect(leaks).toEqual([]);
    const audit = await p.db.primary('audit_log').select('before', 'after', 'target');
    expect(leakedSecrets(JSON.stringify(audit), [...backofficeSecrets, ...allSecrets()])).toEqual([]);
    const accounts = await p.db.primary('operator_accounts').whereIn('account_id', [admin.accountId, support.accountId]).select('*');
    expect(leakedSecrets(JSON.stringify(accounts), backofficeSecrets)).toEqual([]);
    tally.check('back-office answers and the audit trail searched', responses.length);
  });

  scenario('When the run is over, then no log line of any service holds a secret', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines.length).toBeGreaterThan(100);
    const secrets = [...allSecrets(), ...backofficeSecrets, { name: 'admin token', value: p.adminToken }];
    const leaks = lines.flatMap((line) => leakedSecrets(line, secrets).map((s) => `${s} in ${line.slice(0, 200)}`));
    expect(leaks).toEqual([]);
    tally.check('log lines searched', lines.length);
  });

  scenario('When the careless casino echoed the wallet token, then the audit text stored for it does not hold the token, and sessions hold it only sealed', async () => {
    const tokens = playerSecrets(players);
    const attempts = await p.db
      .primary('transaction_attempts as a')
      .join('transactions as t', 't.id', 'a.transaction_pk')
      .whereIn('t.provider_id', [e.providerId, a.world.providerId])
      .select('a.casino_body', 'a.error_message', 't.error_message as tx_error');
    expect(attempts.length).toBeGreaterThan(0);
    const stored = attempts.map((r) => `${r.casino_body ?? ''} ${r.error_message ?? ''} ${r.tx_error ?? ''}`).join('\n');
    expect(leakedSecrets(stored, tokens)).toEqual([]);
    const sessions = await p.db.primary('sessions').whereIn('provider_id', [e.providerId, a.world.providerId]).select('wallet_token_enc');
    expect(leakedSecrets(sessions.map((s) => s.wallet_token_enc).join('\n'), tokens)).toEqual([]);
    tally.check('stored audit text and sessions searched', attempts.length + sessions.length);
    expect((await adminGet(p, `casinos/${e.providerId}`)).text).not.toContain(e.walletSecret);
    expect((await adminPut(p, `casinos/${e.providerId}`, { name: 'Echo', walletUrl: echo.walletUrl })).text).not.toContain(e.walletSecret);
  });

  function allSecrets(): NamedSecret[] {
    return [...[a.world, b.world, e].flatMap(secretsOf), ...playerSecrets(players), ...launchTokens];
  }
});
