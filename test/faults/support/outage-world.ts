import { startPlatform, type TestPlatform } from '../../platform';
import { startGameWorld, type GameWorld, type Player } from '../../game';
import { checkLedgerAgreement, checkRoundsConsistent } from './invariants';
import { MoneyLoad } from './load';
import { sleep } from './money';
import { ensureUp, type Dependency } from './outage';
import type { Tally } from './reliability';

/** The world a dependency restart happens in: six players under a steady money load. */
export interface OutageWorld {
  p: TestPlatform;
  g: GameWorld;
  players: Player[];
  load: MoneyLoad;
}

/**
 * Registers the describe block's setup and teardown: the platform with a short in-flight window
 * (so attempts cut off by the outage can be repeated soon after), six players with `startBalance`
 * each, and the load on them. Teardown brings the dependency back up before stopping anything.
 * The returned object is filled in by beforeAll.
 */
export function outageWorld(dep: Dependency, tally: Tally, opts: { windowSeconds: number; startBalance: number }): OutageWorld {
  const w = {} as OutageWorld;
  beforeAll(async () => {
    await ensureUp(dep);
    w.p = await startPlatform({ env: { IN_FLIGHT_WINDOW_SECONDS: String(opts.windowSeconds), CASINO_TIMEOUT_MS: '1500' } });
    w.g = await startGameWorld(w.p);
    w.players = await Promise.all(Array.from({ length: 6 }, () => w.g.launchPlayer({ balance: opts.startBalance })));
    w.load = new MoneyLoad(w.g, w.players, tally, opts.startBalance);
  });
  afterAll(async () => {
    await w.load?.stop();
    await ensureUp(dep);
    await w.p?.stop();
    await w.g?.sandbox.close();
  });
  return w;
}

/**
 * After the outage: every movement that got no answer is repeated with its transactionId once the
 * in-flight window has passed; then nothing answered 200 is lost or doubled, the relay and the
 * casino agree exactly, every round is settled, every player's casino balance is exactly what the
 * game played, and every round-ended answered ok was delivered.
 */
export async function repeatUnansweredAndCheckNothingLost({ p, g, players, load }: OutageWorld, tally: Tally, windowSeconds: number): Promise<void> {
  await sleep(windowSeconds * 1000 + 200); // attempts cut off by the outage are abandoned after the window
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
}
