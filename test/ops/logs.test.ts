import { randomBytes } from 'node:crypto';
import { createLaunchToken } from '@relay/casino-sandbox';
import { DEV_SECRETS } from '@relay/shared';
import { http, startPlatform, uniqueId, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { adminPost, adminPut } from '../provision';
import { captureSpans, startHeaderCasino, waitFor, type HeaderCasino, type SpanCapture } from './ops-support';

/**
 * Every log line of a whole flow, from every service and the worker, captured in memory at level
 * trace: one JSON line per request carrying request id, trace id, game provider, casino, route,
 * status and duration, and not one line holding a wallet token, wallet secret, launch key,
 * launch token or provider token, even when a casino echoes the wallet token back in its error.
 */

interface LogLine {
  service: string;
  level: string;
  msg: string;
  requestId?: string;
  traceId?: string;
  groupId?: string;
  providerId?: string;
  route?: string;
  status?: number;
  durationMs?: number;
  method?: string;
  [key: string]: unknown;
}

const raw: string[] = [];
const destination = { write: (chunk: string) => void raw.push(...chunk.split('\n').filter(Boolean)) };

let capture: SpanCapture;
let p: TestPlatform;
let world: GameWorld;
let echoCasino: HeaderCasino;
const secrets: Record<string, string> = {};

function lines(): LogLine[] {
  return raw.map((l) => JSON.parse(l) as LogLine);
}

beforeAll(async () => {
  capture = await captureSpans();
  p = await startPlatform({ logDestination: destination });
  world = await startGameWorld(p);
  Object.assign(secrets, {
    'provider token': world.providerToken,
    'wallet secret': world.walletSecret,
    'launch key': world.launchKey,
    'admin token': p.adminToken,
    'internal auth secret': DEV_SECRETS.INTERNAL_AUTH_SECRET,
    'data encryption key': DEV_SECRETS.DATA_ENCRYPTION_KEY,
  });
});

afterAll(async () => {
  await p?.stop();
  await world?.sandbox.close();
  await echoCasino?.close();
  await capture?.telemetry.shutdown();
});

describe('logs', () => {
  let player: Player;
  let cashOutRequestId = '';

  it('When a whole game flow and its administration run, then no log line holds a secret', async () => {
    // Launch with a token we keep, so the launch token itself can be looked for too.
    const playerId = uniqueId('player');
    const walletToken = `wt-${randomBytes(16).toString('hex')}`;
    world.sandbox.addPlayer({ providerId: world.providerId, playerId, walletToken, balance: 100 });
    const launchToken = await createLaunchToken({ launchKey: world.launchKey, providerId: world.providerId, playerId, walletToken });
    const query = new URLSearchParams({ token: launchToken, providerId: world.providerId, gameId: String(world.gameId), currency: 'EUR', language: 'en' });
    const launched = await http('GET', `${p.baseUrl}/launch?${query}`);
    expect(launched.status).toBe(302);
    const sessionId = new URL(launched.headers.get('location')!).searchParams.get('sessionId')!;
    player = { playerId, walletToken, sessionId, currency: 'EUR' };
    Object.assign(secrets, { 'wallet token': walletToken, 'launch token': launchToken });

    expect((await world.call('GET', `/api/v1/sessions/${sessionId}?gameId=${world.gameId}&currency=EUR`)).status).toBe(200);
    expect((await world.call('GET', `/api/account?sessionId=${sessionId}&currency=EUR`)).status).toBe(200);
    const bet = { sessionId, gameId: world.gameId, currency: 'EUR', roundId: uniqueId('round'), transactionId: uniqueId('bet'), amount: 10 };
    const cashOut = await world.call('POST', '/api/balance/cash-out', bet);
    expect(cashOut.status).toBe(200);
    cashOutRequestId = cashOut.headers.get('x-request-id')!;
    const win = { ...bet, transactionId: uniqueId('win'), amount: 20, reason: 'NORMAL_WIN', appliedMultiplier: 2, previousTransactionId: bet.transactionId, betAmount: 10 };
    expect((await world.call('POST', '/api/balance/cash-in', win)).status).toBe(200);
    expect((await world.call('POST', '/api/round-ended', { roundId: bet.roundId, providerIds: [world.providerId] })).status).toBe(200);
    expect((await world.call('GET', '/api/v1/transactions?page=1&limit=10')).status).toBe(200);

    // Administration carrying secrets: a casino PUT with its own wallet secret and launch key, a
    // refused PUT whose bad launch key must not be echoed either, and a new provider token.
    const ownSecret = `ws-${randomBytes(16).toString('hex')}`;
    const ownKey = randomBytes(32).toString('base64url');
    const badKey = `bad-launch-key-${randomBytes(8).toString('hex')}`;
    echoCasino = await startHeaderCasino(90, (call) =>
      // A hostile casino: refuses the debit and echoes the player's wallet token in its reason.
      call.path.endsWith('/debit') ? { status: 401, body: { error: 'TOKEN_EXPIRED', message: `token ${String(call.body.walletToken)} expired` } } : undefined,
    );
    const echoId = uniqueId('cas-echo');
    expect((await adminPut(p, `casinos/${echoId}`, { name: 'Echo casino', walletUrl: echoCasino.url, walletSecret: ownSecret, launchKey: ownKey })).status).toBe(200);
    expect((await adminPut(p, `casinos/${uniqueId('cas-bad')}`, { name: 'Bad', walletUrl: echoCasino.url, launchKey: badKey })).status).toBe(400);
    const created = await adminPost(p, `game-providers/${world.groupId}/tokens`);
    expect(created.status).toBe(201);
    Object.assign(secrets, { 'own wallet secret': ownSecret, 'own launch key': ownKey, 'refused launch key': badKey, 'new provider token': String(created.body.data.token) });

    // A money call at the echoing casino, and calls with a wrong token and with the secret in odd places.
    const echoToken = `wt-echo-${randomBytes(16).toString('hex')}`;
    secrets['echoed wallet token'] = echoToken;
    const echoLaunch = await createLaunchToken({ launchKey: ownKey, providerId: echoId, playerId: uniqueId('player'), walletToken: echoToken });
    const echoQuery = new URLSearchParams({ token: echoLaunch, providerId: echoId, gameId: String(world.gameId), currency: 'EUR', language: 'en' });
    const echoLaunched = await http('GET', `${p.baseUrl}/launch?${echoQuery}`);
    expect(echoLaunched.status).toBe(302);
    const echoSession = new URL(echoLaunched.headers.get('location')!).searchParams.get('sessionId')!;
    const refused = await world.call('POST', '/api/balance/cash-out', { ...bet, sessionId: echoSession, roundId: uniqueId('round'), transactionId: uniqueId('bet') });
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain(echoToken);
    expect((await http('GET', `${p.baseUrl}/api/account?sessionId=${sessionId}`, { token: `${world.providerToken}x` })).status).toBe(403);
    expect((await http('POST', `${p.baseUrl}/api/balance/cash-out`, { token: world.providerToken, body: { walletToken, token: walletToken } })).status).toBe(400);

    const all = raw.join('\n');
    if (process.env.DUMP_LOGS) console.log(all);
    expect(raw.length).toBeGreaterThan(30);
    for (const [what, value] of Object.entries(secrets)) {
      expect({ what, found: all.includes(value) }).toEqual({ what, found: false });
    }
  });

  it('When any service logs, then every line is one JSON object with service, level and time', () => {
    const services = new Set<string>();
    for (const line of raw) {
      const parsed = JSON.parse(line) as LogLine;
      expect(typeof parsed.service).toBe('string');
      expect(typeof parsed.level).toBe('string');
      expect(typeof parsed.time).toBe('string');
      services.add(parsed.service);
    }
    expect([...services].sort()).toEqual(['admin', 'gateway', 'launcher', 'notifier', 'notifier-worker', 'reporting', 'wallet']);
  });

  it('When a request is answered, then each service writes one line with request id, trace id, game provider, casino, route, status and duration', async () => {
    const requestLines = await waitFor('the access lines of the cash-out', () => {
      const found = lines().filter((l) => l.msg === 'request' && l.requestId === cashOutRequestId);
      return found.length === 2 ? found : null;
    });
    const gateway = requestLines.find((l) => l.service === 'gateway')!;
    const wallet = requestLines.find((l) => l.service === 'wallet')!;
    for (const line of [gateway, wallet]) {
      expect(line).toMatchObject({ method: 'POST', status: 200, groupId: world.groupId });
      expect(line.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(typeof line.durationMs).toBe('number');
    }
    expect(wallet.traceId).toBe(gateway.traceId);
    expect(gateway.route).toBe('/api/balance/cash-out');
    expect(wallet.route).toBe('/api/balance/cash-out');
    // The wallet knows the casino once it resolved the session.
    expect(wallet.providerId).toBe(world.providerId);

    // Every session-scoped wallet call names its casino on its access line.
    const walletLines = lines().filter((l) => l.service === 'wallet' && l.msg === 'request' && l.status === 200);
    expect(walletLines.length).toBeGreaterThanOrEqual(4);
    for (const l of walletLines) expect(l.providerId).toBe(world.providerId);

    // The worker's lines of a delivery join the round-ended request's id and trace.
    const delivered = lines().find((l) => l.service === 'notifier-worker' && l.msg === 'round-ended delivered')!;
    const notifierLine = lines().find((l) => l.service === 'notifier' && l.msg === 'request' && l.requestId === delivered.requestId);
    expect(notifierLine).toBeDefined();
    expect(delivered.traceId).toBe(notifierLine!.traceId);
    expect(delivered.providerId).toBe(world.providerId);

    // And a launch names its casino too.
    const launchLine = lines().find((l) => l.service === 'launcher' && l.msg === 'request' && l.status === 302)!;
    expect(launchLine.providerId).toBe(world.providerId);
    expect(player.sessionId).toBeTruthy();
  });
});
