import { startPlatform, type TestPlatform } from '../../platform';
import { startGameWorld, type GameWorld, type Player } from '../../game';
import { checkLedgerAgreement, checkRoundsConsistent } from '../support/invariants';
import { MoneyLoad } from '../support/load';
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
  let p: TestPlatform;
  let g: GameWorld;
  let players: Player[];
  let load: MoneyLoad;

  beforeAll(async () => {
    await ensureUp(pg);
    p = await startPlatform({ env: { IN_FLIGHT_WINDOW_SECONDS: String(WINDOW_SECONDS), CASINO_TIMEOUT_MS: '1500' } });
    g = await startGameWorld(p);
    players = await Promise.all(Array.from({ length: 6 }, () => g.launchPlayer({ balance: START_BALANCE })));
    load = new MoneyLoad(g, players, tally, START_BALANCE);
  });
  afterAll(async () => {
    await load?.stop();
    await ensureUp(pg);
    await p?.stop();
    await g?.sandbox.close();
  });

  jest.setTimeout(120_000);

  scenario('When PostgreSQL stops under load, then /readyz of the gateway and every service answers 503 naming postgres, and 200 again once it is back', async () => {
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
        // Each names its database check (reporting: postgres_read, the only one it depends on).
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
    await sleep(WINDOW_SECONDS * 1000 + 200); // attempts cut off by the outage are abandoned after the window
    const { failures } = await load.settle();
    expect(failures).toEqual([]);
    await sleep(300);

    const rows = await p.db.primary('transactions').where({ provider_id: g.providerId }).whereIn('transaction_id', load.confirmed).select('transaction_id', 'status');
    expect(rows.filter((r) => r.status !== 'SUCCESS')).toEqual([]);
    expect(rows).toHaveLength(new Set(load.confirmed).size);
    await checkLedgerAgreement(p, g);
    await checkRoundsConsistent(p, g);
    const open = await p.db.primary('rounds').where({ provider_id: g.providerId, status: 'OPEN' }).count({ n: '*' });
    expect(Number(open[0].n)).toBe(0);
    for (const pl of players) expect([pl.playerId, g.sandbox.getPlayer(g.providerId, pl.playerId)!.balance]).toEqual([pl.playerId, load.expectedBalance(pl.playerId)]);
    for (const roundId of load.notified) expect(g.sandbox.roundEndedCount({ providerId: g.providerId, roundId })).toBeGreaterThanOrEqual(1);
    tally.check('ledger agreement');
    tally.check('rounds consistent with transactions');
    tally.check('answered movements found SUCCESS', rows.length);
    tally.check('player balances exact', players.length);
    tally.check('round-ended answered ok was delivered', load.notified.length);
  });
});

/** postgres (or postgres_read): 'down' when any database check is down. */
function postgresCheck(checks: Record<string, string>): string | undefined {
  const db = Object.entries(checks).filter(([name]) => name.startsWith('postgres'));
  if (db.length === 0) return undefined;
  return db.some(([, state]) => state === 'down') ? 'down' : 'ok';
}
