import { outageWorld, repeatUnansweredAndCheckNothingLost } from '../support/outage-world';
import { sleep } from '../support/money';
import { ensureUp, postgres, waitForDown, waitForReadiness } from '../support/outage';
import { scenarioIt, Tally } from '../support/reliability';

/**
 * PostgreSQL stopped and started again under steady game traffic. DISRUPTIVE: every other test on
 * the machine loses its database for a moment, so this runs only in the serial second phase of
 * `npm test` (`jest --runInBand --testMatch '<rootDir>/test/faults/disruptive/**\/*.test.ts'`).
 */
const WINDOW_SECONDS = 2;
const START_BALANCE = 10_000;
const pg = postgres();

const tally = new Tally(
  'postgres-restart',
  'PostgreSQL restart under load',
  'test/faults/disruptive/postgres-restart.test.ts',
  `Six players play continuously (cash-out, cash-in, round-ended) while PostgreSQL is stopped and started again (pg_ctlcluster). /readyz of the gateway and of every service turns 503 naming postgres while it is down and 200 after; every movement that got no answer is repeated with the same transactionId (IN_FLIGHT_WINDOW_SECONDS=${WINDOW_SECONDS}); then nothing answered 200 is lost, the relay and the casino agree exactly, every round is settled and every player's casino balance is exactly what the game played.`,
);
const scenario = scenarioIt(tally);
const describeIf = pg.unavailable ? describe.skip : describe;
if (pg.unavailable) tally.note(`Skipped on this machine: ${pg.unavailable}.`);
afterAll(() => tally.write());

describeIf('PostgreSQL restart under load', () => {
  const w = outageWorld(pg, tally, { windowSeconds: WINDOW_SECONDS, startBalance: START_BALANCE });

  jest.setTimeout(120_000);

  scenario('When PostgreSQL stops under load, then /readyz of the gateway and every service answers 503 naming postgres, and 200 again once it is back', async () => {
    const { p, load } = w;
    await waitForReadiness(p, (r) => r.status === 200, 10_000);
    load.start();
    let up: Awaited<ReturnType<typeof waitForReadiness>>;
    try {
      await sleep(1000);
      try {
        pg.stop();
        tally.fault('PostgreSQL stopped');
        await waitForDown(pg);
        const down = await waitForReadiness(p, (r) => r.status === 503, 10_000);
        // Each names its database check (reporting: postgres_reporting, the only one it depends on).
        for (const [name, r] of Object.entries(down)) expect([name, postgresCheck(r.checks)]).toEqual([name, 'down']);
        await sleep(1000); // the load keeps hitting the platform while the database is away
      } finally {
        await ensureUp(pg);
      }
      up = await waitForReadiness(p, (r) => r.status === 200, 30_000);
      for (const [name, r] of Object.entries(up)) expect([name, postgresCheck(r.checks)]).toEqual([name, 'ok']);
      await sleep(1500); // traffic after the restart, on the pools' fresh connections
    } finally {
      await load.stop();
      tally.note(`Answers to the load during the run, by status: ${JSON.stringify(load.statuses)}.`);
    }
    tally.check('readiness 503 while down, 200 after', Object.keys(up).length);
  });

  scenario('When the unanswered movements are repeated with their transactionIds, then nothing is lost or doubled and every round is settled', async () => {
    await repeatUnansweredAndCheckNothingLost(w, tally, WINDOW_SECONDS);
  });
});

/** postgres (or postgres_reporting): 'down' when any database check is down. */
function postgresCheck(checks: Record<string, string>): string | undefined {
  const db = Object.entries(checks).filter(([name]) => name.startsWith('postgres'));
  if (db.length === 0) return undefined;
  return db.some(([, state]) => state === 'down') ? 'down' : 'ok';
}
