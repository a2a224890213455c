import { startGameWorld, type GameWorld } from '../../../test/game';
import { startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';
import { pairBodies } from '../src/money-bench';
import { formatLag, LagProbe, lagSummary } from '../src/replication-lag';

/**
 * The money bench's replication lag (issue 34): its percentiles, and its probe against the test
 * run's real money database and the reporting database subscribed to it, with real money calls
 * through the gateway.
 */
describe('lag percentiles', () => {
  test('When lags are summarised, then p50, p99 and max are samples at the bench\'s ranks, and nothing sampled reads n/a', () => {
    const lags = Array.from({ length: 200 }, (_, i) => i + 1); // 1..200 ms, given out of order
    lags.reverse();
    expect(lagSummary(lags)).toEqual({ records: 200, unseen: 0, p50: 101, p99: 199, max: 200 });
    // Under 100 samples p99 is the largest, as the bench's latency percentiles read it.
    expect(lagSummary([5, 1, 3])).toEqual({ records: 3, unseen: 0, p50: 3, p99: 5, max: 5 });
    const none = lagSummary([]);
    expect([none.records, none.p50, none.p99, none.max].map(String)).toEqual(['0', 'NaN', 'NaN', 'NaN']);
    expect([formatLag(none.p99), formatLag(42), formatLag(1500)]).toEqual(['n/a', '0.042 s', '1.500 s']);
  });

  test('When records were never seen on the reporting database, then they weigh as infinite lags: enough of them move p99, and the max always', () => {
    const lags = Array.from({ length: 198 }, () => 10);
    expect(lagSummary(lags, 2)).toMatchObject({ records: 200, unseen: 2, p50: 10, p99: Infinity, max: Infinity });
    expect(lagSummary(lags.concat(10), 1)).toMatchObject({ records: 200, p99: 10, max: Infinity });
    expect(formatLag(Infinity)).toBe('never seen');
  });
});

describe('lag probe against the run\'s databases', () => {
  let p: TestPlatform;
  let world: GameWorld;

  beforeAll(async () => {
    p = await startPlatform({ services: ['launcher', 'wallet', 'admin'] });
    world = await startGameWorld(p);
  }, 60000);
  afterAll(async () => {
    await p?.stop();
    await world?.sandbox.close();
  });

  test('When sampled money pairs go through the gateway, then each of their records is timed from its write on the money database to its arrival on the reporting one', async () => {
    const player = await world.launchPlayer({ balance: 1000 });
    const probe = await LagProbe.start(p.config.DATABASE_URL, p.config.reportingDatabaseUrl, world.providerId, { sampleMs: 50, pollMs: 5 });
    const started = Date.now();
    let sampled = 0;
    for (let i = 0; i < 5; i++) {
      const bodies = pairBodies(player.sessionId, world.gameId, uniqueId('lag'));
      const watched = probe.watch([bodies.cashOut.transactionId, bodies.cashIn.transactionId]);
      if (watched) sampled += 1;
      const out = await world.call('POST', '/api/balance/cash-out', bodies.cashOut);
      if (watched) probe.answered(bodies.cashOut.transactionId, out.status === 200);
      const inn = await world.call('POST', '/api/balance/cash-in', bodies.cashIn);
      if (watched) probe.answered(bodies.cashIn.transactionId, inn.status === 200);
      expect([out.status, inn.status]).toEqual([200, 200]);
      await new Promise((r) => setTimeout(r, 60)); // past the next sampling tick
    }
    const result = await probe.stop(20_000);
    expect(sampled).toBeGreaterThanOrEqual(3);
    expect(result).toMatchObject({ records: sampled * 2, unseen: 0, failed: 0, pollErrors: 0 });
    // A lag is a real span: not negative, and within the time the test took.
    expect(result.p50).toBeGreaterThanOrEqual(0);
    expect(result.max).toBeLessThan(Date.now() - started);
  });

  test('When a sampled call is refused or its record never reaches the reporting database, then it is not a lag sample, or it is counted as never seen', async () => {
    const probe = await LagProbe.start(p.config.DATABASE_URL, p.config.reportingDatabaseUrl, world.providerId, { sampleMs: 10_000, pollMs: 5 });
    // The first pair is sampled at once; no call with these ids is ever made.
    const refused = uniqueId('refused');
    const lost = uniqueId('lost');
    expect(probe.watch([refused, lost])).toBe(true);
    expect(probe.watch([uniqueId('not-sampled')])).toBe(false); // the next sample is due in 10 s
    probe.answered(refused, false);
    probe.answered(lost, true);
    const result = await probe.stop(300);
    expect(result).toMatchObject({ records: 1, unseen: 1, failed: 1, p99: Infinity });
  });
});
