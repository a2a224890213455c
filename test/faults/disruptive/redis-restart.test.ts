import { startGameWorld } from '../../game';
import { adminPut } from '../../provision';
import { outageWorld, repeatUnansweredAndCheckNothingLost } from '../support/outage-world';
import { eventually, sleep } from '../support/money';
import { ensureUp, redis, waitForDown, waitForReadiness } from '../support/outage';
import { scenarioIt, Tally } from '../support/reliability';

/**
 * Redis shut down (without saving: it comes back empty) and started again under steady game
 * traffic. DISRUPTIVE: every other test on the machine loses its Redis state, so this runs only in
 * the serial second phase of `npm test`.
 */
const WINDOW_SECONDS = 2;
const START_BALANCE = 10_000;
const dep = redis();

const tally = new Tally(
  'redis-restart',
  'Redis restart under load',
  'test/faults/disruptive/redis-restart.test.ts',
  `Six players play continuously (cash-out, cash-in, round-ended) while Redis is shut down without saving and started again empty. /readyz of the gateway and of every service using Redis turns 503 naming redis while it is down and 200 after; sessions launched before the restart still work (their durable copy is in PostgreSQL), new launches work, an admin change still takes effect within a second (the change bus resubscribes), and after repeating what got no answer nothing is lost: ledger agreement, every round settled, exact player balances, and every round-ended answered ok was delivered.`,
);
const scenario = scenarioIt(tally);
const describeIf = dep.unavailable ? describe.skip : describe;
if (dep.unavailable) tally.note(`Skipped on this machine: ${dep.unavailable}.`);
afterAll(() => tally.write());

describeIf('Redis restart under load', () => {
  const w = outageWorld(dep, tally, { windowSeconds: WINDOW_SECONDS, startBalance: START_BALANCE });

  jest.setTimeout(120_000);

  scenario('When Redis stops under load, then /readyz answers 503 naming redis, and 200 again once it is back', async () => {
    const { p, load } = w;
    await waitForReadiness(p, (r) => r.status === 200, 10_000);
    load.start();
    let up: Awaited<ReturnType<typeof waitForReadiness>>;
    try {
      await sleep(1000);
      try {
        dep.stop();
        tally.fault('Redis shut down without saving');
        await waitForDown(dep);
        // Reporting depends on its database alone; every other service and the gateway use Redis.
        const down = await waitForReadiness(p, (r) => r.status === 503 || r.checks.redis === undefined, 10_000);
        const named = Object.entries(down).filter(([, r]) => r.checks.redis !== undefined);
        expect(named.length).toBeGreaterThanOrEqual(5);
        for (const [name, r] of named) expect([name, r.status, r.checks.redis]).toEqual([name, 503, 'down']);
        await sleep(1000); // the load keeps going while Redis is away
      } finally {
        await ensureUp(dep);
      }
      up = await waitForReadiness(p, (r) => r.status === 200, 30_000);
      await sleep(1500);
    } finally {
      await load.stop();
      tally.note(`Answers to the load during the run, by status: ${JSON.stringify(load.statuses)}.`);
    }
    tally.check('readiness 503 while down, 200 after', Object.keys(up).length);
    // Money never waits on Redis: sessions are also in PostgreSQL and in process, the rate limit falls back in process.
    const moneyRefused = Object.entries(load.statuses).filter(([key]) => !key.startsWith('round-ended') && !key.endsWith(' 200'));
    expect(moneyRefused).toEqual([]);
    tally.check('every money call answered 200 while Redis was down');
  });

  scenario('When Redis is back, then sessions from before still work, new launches work, and an admin change takes effect within a second', async () => {
    const { p, g, players } = w;
    const before = await g.call('GET', `/api/account?sessionId=${players[0].sessionId}`);
    expect(before.status).toBe(200);
    const fresh = await g.launchPlayer({ balance: 50 });
    expect((await g.call('GET', `/api/v1/sessions/${fresh.sessionId}?gameId=${g.gameId}`)).status).toBe(200);
    const other = await startGameWorld(p, { sandbox: g.sandbox });
    const pl = await other.launchPlayer();
    expect((await adminPut(p, `casinos/${other.providerId}`, { name: 'Casino', walletUrl: other.walletUrl, status: 'INACTIVE' })).status).toBe(200);
    await eventually(async () => (await other.call('GET', `/api/account?sessionId=${pl.sessionId}`)).body?.error === 'PROVIDER_NOT_ACTIVE', 2000, 'the admin change to reach the wallet');
    tally.request(4);
    tally.check('sessions, launches and admin changes work after the restart', 3);
  });

  scenario('When the unanswered movements are repeated with their transactionIds, then nothing is lost or doubled and every round is settled', async () => {
    await repeatUnansweredAndCheckNothingLost(w, tally, WINDOW_SECONDS);
  });
});
