import { startPlatform, type TestPlatform } from '../../../test/platform';
import { startGameWorld, type GameWorld } from '../../../test/game';
import { freePort, startServiceProcess, type ServiceProcess } from '../../../test/processes';
import { applied, attempts, betBody, transactionRow } from './money-support';
import { eventually } from '../../../test/faults/support/money';

/**
 * The wallet service as its own process, killed with SIGKILL while a debit waits on the casino.
 * Uses the built service (`npm run build`, run by `npm test`).
 */
// Long enough that the killed wallet restarts inside it on a slow, loaded machine (the early repeat must be 409).
const WINDOW_SECONDS = 10;

describe('wallet crash', () => {
  let p: TestPlatform;
  let g: GameWorld;
  let port: number;
  let wallet: ServiceProcess | null = null;
  const env = () => ({ WALLET_PORT: String(port), IN_FLIGHT_WINDOW_SECONDS: String(WINDOW_SECONDS), CASINO_TIMEOUT_MS: '5000', LOG_LEVEL: 'warn', REDIS_KEY_PREFIX: p.config.REDIS_KEY_PREFIX });

  beforeAll(async () => {
    port = await freePort();
    p = await startPlatform({ services: ['launcher', 'admin'], env: { WALLET_URL: `http://127.0.0.1:${port}` } });
    g = await startGameWorld(p);
  });
  afterAll(async () => {
    if (wallet && wallet.child.exitCode === null) wallet.child.kill('SIGKILL');
    await p.stop();
    await g.sandbox.close();
  });

  jest.setTimeout(60000);

  /** The wallet's abandoned-transaction gauges for this test's game provider, from its /metrics. */
  async function abandoned(): Promise<{ count: string[]; oldest: number[] }> {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const mine = text.split('\n').filter((line) => line.includes(`group_id="${g.groupId}"`));
    const values = (name: string) => mine.filter((line) => line.startsWith(`${name}{`)).map((line) => line.slice(line.indexOf('{')));
    return {
      count: values('relay_transactions_abandoned'),
      oldest: values('relay_transactions_abandoned_oldest_seconds').map((line) => Number(line.split(' ').pop())),
    };
  }

  it('When the wallet is killed while a debit waits on the casino, then the record stays PENDING and the same request later completes it with one debit', async () => {
    wallet = await startServiceProcess('services/wallet/dist/main.js', env(), `http://127.0.0.1:${port}/healthz`);
    const pl = await g.launchPlayer({ balance: 100 });
    const bet = betBody(g, pl, { amount: 10 });
    // The casino applies the debit, then takes 3 s to answer: the wallet dies in between.
    g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation: 'debit' }, { kind: 'delay', ms: 3000, applyFirst: true }, 1);
    const pending = g.call('POST', '/api/balance/cash-out', bet);
    // The first request of a freshly started process: on a loaded machine it may take seconds to reach the casino.
    await eventually(() => g.sandbox.countCalls({ transactionId: bet.transactionId }) === 1, 10_000, 'the debit to reach the casino');
    wallet.child.kill('SIGKILL');
    await wallet.exited;
    const lost = await pending;
    expect(lost.status).toBeGreaterThanOrEqual(500); // the game never heard an answer it could trust
    expect(await transactionRow(p, g, bet.transactionId)).toMatchObject({ status: 'PENDING', completed_at: null });
    expect(applied(g, bet.transactionId)).toBe(1); // the casino did move the money

    wallet = await startServiceProcess('services/wallet/dist/main.js', env(), `http://127.0.0.1:${port}/healthz`);
    // Inside the window the repeat is told to wait; after it, the abandoned attempt is taken over.
    const early = await g.call('POST', '/api/balance/cash-out', bet);
    expect(early.status).toBe(409);
    expect(await abandoned()).toEqual({ count: [], oldest: [] }); // still in flight, not abandoned
    const row = await transactionRow(p, g, bet.transactionId);
    const windowEnds = new Date(row.claimed_at).getTime() + WINDOW_SECONDS * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, windowEnds - Date.now()) + 1200));
    // Past the window, before the game repeats: the reconciliation alarm names it.
    const alarm = await abandoned();
    expect(alarm.count).toEqual([`{group_id="${g.groupId}",provider_id="${g.providerId}",category="CASH_OUT",service="wallet"} 1`]);
    expect(alarm.oldest).toHaveLength(1);
    expect(alarm.oldest[0]).toBeGreaterThanOrEqual(WINDOW_SECONDS);
    const done = await g.call('POST', '/api/balance/cash-out', bet);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ id: pl.playerId, balance: 90, username: pl.playerId });
    expect(applied(g, bet.transactionId)).toBe(1);
    expect(g.sandbox.getPlayer(g.providerId, pl.playerId)!.balance).toBe(90);
    expect(await transactionRow(p, g, bet.transactionId)).toMatchObject({ status: 'SUCCESS', attempt: 2 });
    const audit = await attempts(p, g, bet.transactionId);
    expect(audit.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, null],
      [2, 'SUCCESS'],
    ]);
    expect(await p.db.primary('rounds').where({ provider_id: g.providerId, round_id: bet.roundId }).first()).toMatchObject({ status: 'OPEN' });
    await new Promise((r) => setTimeout(r, 1100)); // past the scrape's reuse of its last reading
    expect(await abandoned()).toEqual({ count: [], oldest: [] });
    wallet.child.kill('SIGTERM');
    expect(await wallet.exited).toBe(0);
  });
});
