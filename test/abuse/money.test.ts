import { randomBytes } from 'node:crypto';
import { CasinoAddressPolicy, CasinoClient } from '@relay/shared';
import { createLaunchToken, startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { startGameWorld, type GameWorld } from '../game';
import { http, startPlatform, uniqueId, type TestPlatform } from '../platform';
import { adminPut } from '../provision';
import { scenarioIt, Tally } from '../faults/support/reliability';

/**
 * Abuse that reaches the money and the casinos: a launch that smuggles a parameter past the query
 * parser, a casino answer no database can store, casino addresses inside our network, and the
 * first failure an alert must see.
 */
const tally = new Tally(
  'abuse-money',
  'Abuse that reaches the money and the casinos',
  'test/abuse/money.test.ts',
  'A launch hiding backtoHome=javascript: after 995 filler parameters; casino debits answered with a NUL and control characters in the username, or with the wallet token as the username; casino wallet URLs on loopback, link-local, private and IPv6 loopback addresses saved in production mode, and a name that resolves to loopback at call time; a casino provisioned and then failing with 503. The launch is refused, the movements complete with a cleaned username and no token, internal addresses are refused (allow-listed ones saved), and the failure series exist at zero before the first failure, which counts as the casino\'s, not the relay\'s.',
);
const scenario = scenarioIt(tally);
let p: TestPlatform;
let world: GameWorld;

beforeAll(async () => {
  p = await startPlatform();
  world = await startGameWorld(p);
}, 60000);
afterAll(async () => {
  tally.write();
  await p?.stop();
  await world?.sandbox.close();
});

const scrape = async (url: string) => (await http('GET', `${url}/metrics`)).text;
const sample = (text: string, name: string, labels: Record<string, string>): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('abuse: launch parameters', () => {
  async function launchQuery(extra: string): Promise<{ status: number; location: string | null }> {
    const playerId = uniqueId('player');
    world.sandbox.addPlayer({ providerId: world.providerId, playerId, walletToken: uniqueId('wt'), balance: 10 });
    const token = await createLaunchToken({ launchKey: world.launchKey, providerId: world.providerId, playerId, walletToken: uniqueId('wt') });
    const base = new URLSearchParams({ token, providerId: world.providerId, gameId: String(world.gameId), currency: 'EUR', language: 'en' });
    const res = await http('GET', `${p.baseUrl}/launch?${base}&${extra}`);
    tally.request();
    return { status: res.status, location: res.headers.get('location') };
  }

  scenario('When backtoHome=javascript: follows 995 filler parameters, then the launch is refused and nothing reaches a game', async () => {
    const fillers = Array.from({ length: 995 }, (_, i) => `f${i}=1`).join('&');
    const flood = await launchQuery(`${fillers}&backtoHome=javascript:alert(1)`);
    expect(flood.status).toBe(400);
    expect(flood.location).toBeNull();
    tally.check('flooded launch refused');
  });

  scenario('When a launch has more than 100 parameters, then it is refused; within the bound, an unsafe backtoHome is refused and a safe one forwarded', async () => {
    const over = Array.from({ length: 96 }, (_, i) => `f${i}=1`).join('&'); // 5 of ours + 96
    expect((await launchQuery(over)).status).toBe(400);
    expect((await launchQuery('backtoHome=javascript:alert(1)')).status).toBe(400);
    const ok = await launchQuery('backtoHome=https%3A%2F%2Fcasino.example%2Flobby');
    expect(ok.status).toBe(302);
    expect(new URL(ok.location!).searchParams.get('backtoHome')).toBe('https://casino.example/lobby');
  });
});

describe('abuse: casino answers the database cannot store', () => {
  scenario('When a debit is answered with a username holding a NUL, then the transaction completes and the username is cleaned', async () => {
    const player = await world.launchPlayer({ balance: 50 });
    world.sandbox.setFault({ providerId: world.providerId, playerId: player.playerId, operation: 'debit' }, { kind: 'username', value: 'a\u0000b\u0007c' }, 1);
    const body = { sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: uniqueId('r'), transactionId: uniqueId('t'), amount: 10 };
    const res = await world.call('POST', '/api/balance/cash-out', body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: player.playerId, balance: 40, username: 'abc' });
    const row = await p.db.primary('transactions').where({ provider_id: world.providerId, transaction_id: body.transactionId }).first('status', 'username');
    expect(row).toEqual({ status: 'SUCCESS', username: 'abc' });
    // The repeat replays the stored answer; the casino moved the money once.
    expect((await world.call('POST', '/api/balance/cash-out', body)).body).toEqual(res.body);
    expect(world.sandbox.journal({ providerId: world.providerId, transactionId: body.transactionId }).length).toBe(1);
    tally.request(2);
    tally.fault('NUL username from the casino');
    tally.check('movement completed and stored');
  });

  scenario("When a casino answers with the player's wallet token as the username, then the token is neither stored nor answered", async () => {
    const player = await world.launchPlayer({ balance: 50 });
    world.sandbox.setFault({ providerId: world.providerId, playerId: player.playerId, operation: 'debit' }, { kind: 'username', walletToken: true }, 1);
    const body = { sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: uniqueId('r'), transactionId: uniqueId('t'), amount: 1 };
    const res = await world.call('POST', '/api/balance/cash-out', body);
    expect(res.status).toBe(200);
    expect(res.body.username).toBe(player.playerId);
    expect(res.text).not.toContain(player.walletToken);
    const row = await p.db.primary('transactions').where({ provider_id: world.providerId, transaction_id: body.transactionId }).first('username');
    expect(row.username).toBe(player.playerId);
    tally.request();
    tally.fault('wallet token as username');
    tally.check('token neither stored nor answered');
  });
});

describe('abuse: casino wallet addresses', () => {
  let prod: TestPlatform;
  let sandbox: CasinoSandbox;
  beforeAll(async () => {
    const secret = () => randomBytes(24).toString('hex');
    prod = await startPlatform({
      services: ['admin'],
      env: { NODE_ENV: 'production', ADMIN_TOKEN: secret(), INTERNAL_AUTH_SECRET: secret(), DATA_ENCRYPTION_KEY: secret(), CASINO_PRIVATE_ADDRESS_ALLOWLIST: '10.20.0.0/16,wallet.internal.test' },
    });
    sandbox = await startCasinoSandbox();
  });
  afterAll(async () => {
    await prod?.stop();
    await sandbox?.close();
  });

  const save = (walletUrl: string) => adminPut(prod, `casinos/${uniqueId('casino')}`, { name: 'Casino', walletUrl });

  scenario('When production is asked to save a wallet URL on loopback, link-local or private space, then it is refused; public and allow-listed ones are saved', async () => {
    for (const url of ['http://127.0.0.1:8090/wallet', 'http://localhost:8090/wallet', 'http://169.254.169.254/latest', 'http://10.0.0.5/w', 'http://192.168.1.2/w', 'http://[::1]:80/w', 'http://[::ffff:127.0.0.1]/w']) {
      const res = await save(url);
      expect({ url, status: res.status, error: res.body?.error }).toEqual({ url, status: 400, error: 'Bad Request' });
      tally.request();
      tally.check('internal wallet address refused');
    }
    for (const url of ['https://93.184.216.34/wallet', 'http://10.20.3.4/wallet', 'http://wallet.internal.test/w']) {
      const res = await save(url);
      expect({ url, status: res.status, body: res.status === 200 ? null : res.body }).toEqual({ url, status: 200, body: null });
    }
  });

  scenario('When a saved name resolves to loopback at call time (DNS rebinding), then the call is refused before it connects', async () => {
    const client = new CasinoClient({ timeoutMs: 2000, addressPolicy: new CasinoAddressPolicy(true, '') });
    try {
      const before = sandbox.countCalls();
      const casino = { providerId: 'rebound', walletUrl: `http://localhost:${new URL(sandbox.walletUrl).port}/wallet`, walletSecret: 'x'.repeat(32) };
      const result = await client.call(casino, 'balance', { providerId: 'rebound', playerId: 'p', walletToken: 'wt', currency: 'EUR' });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe('PROVIDER_API_FAILURE');
      expect(sandbox.countCalls()).toBe(before);
      tally.fault('name resolving to loopback at call time');
      tally.check('call refused before connecting');
      // Outside production the same call goes through to the local casino.
      const local = new CasinoClient({ timeoutMs: 2000, addressPolicy: new CasinoAddressPolicy(false, '') });
      await local.call(casino, 'balance', { providerId: 'rebound', playerId: 'p', walletToken: 'wt', currency: 'EUR' });
      expect(sandbox.countCalls()).toBe(before + 1);
      await local.close();
    } finally {
      await client.close();
    }
  });
});

describe('abuse: failures counted from zero, the casino apart from the relay', () => {
  scenario("When a casino is provisioned, then its failure series exist at 0 before any call, and a casino 503 counts as the casino's error", async () => {
    const fresh = await startGameWorld(p, { sandbox: world.sandbox });
    const wallet = p.services.wallet!.url;
    let text = '';
    for (let i = 0; i < 100 && sample(text, 'casino_calls_total', { provider_id: fresh.providerId, operation: 'debit', outcome: 'casino_error' }) === undefined; i++) {
      await new Promise((r) => setTimeout(r, 100));
      text = await scrape(wallet);
    }
    expect(sample(text, 'casino_calls_total', { provider_id: fresh.providerId, operation: 'debit', outcome: 'casino_error' })).toBe(0);
    expect(sample(text, 'relay_money_calls_total', { provider_id: fresh.providerId, operation: 'cash-out', result: 'relay_error' })).toBe(0);
    expect(sample(text, 'relay_money_calls_total', { provider_id: fresh.providerId, operation: 'cash-out', result: 'casino_error' })).toBe(0);

    const player = await fresh.launchPlayer({ balance: 20 });
    fresh.sandbox.setFault({ providerId: fresh.providerId, operation: 'debit' }, { kind: 'error', status: 503 }, 1);
    const res = await fresh.call('POST', '/api/balance/cash-out', { sessionId: player.sessionId, gameId: fresh.gameId, currency: 'EUR', roundId: uniqueId('r'), transactionId: uniqueId('t'), amount: 1 });
    expect(res.status).toBe(500); // CASHOUT_FAILED: the casino failed the debit
    text = await scrape(wallet);
    expect(sample(text, 'casino_calls_total', { provider_id: fresh.providerId, operation: 'debit', outcome: 'casino_error' })).toBe(1);
    expect(sample(text, 'relay_money_calls_total', { provider_id: fresh.providerId, operation: 'cash-out', result: 'casino_error' })).toBe(1);
    expect(sample(text, 'relay_money_calls_total', { provider_id: fresh.providerId, operation: 'cash-out', result: 'relay_error' })).toBe(0);
    tally.request();
    tally.fault('casino 503 on debit');
    tally.check('failure series from zero; casino error apart from the relay');
  });
});
