import type { Fault } from '@relay/casino-sandbox';
import { roundBalance } from '@relay/shared';
import { startPlatform, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { adminPut } from '../provision';
import { freePort } from '../processes';
import { betBody, countRecords, transactionRow, winBody } from '../../services/wallet/test/money-support';
import { checkLedgerAgreement, checkRoundsConsistent } from './support/invariants';
import { eventually, expectedAnswer, faultLabel, MONEY_ROUTES, operationOf, replayUntilOk, sleep, type MoneyRoute } from './support/money';
import { scenarioIt, Tally } from './support/reliability';

/**
 * Every casino fault the sandbox can script, against every money route and the balance read, with
 * a short CASINO_TIMEOUT_MS. After each scenario the game repeats the request with the same
 * transactionId, and the relay's records and the casino's journal must agree exactly.
 */
const TIMEOUT_MS = 1000;
const JUST_UNDER = 500;
const JUST_OVER = 1160;

const FAULTS: [string, Fault][] = [
  ['an answer just under the time-out', { kind: 'delay', ms: JUST_UNDER }],
  ['an answer just over the time-out, the money moving after the relay gave up', { kind: 'delay', ms: JUST_OVER }],
  ['an answer just over the time-out, the money moved before the wait', { kind: 'delay', ms: JUST_OVER, applyFirst: true }],
  ['a 500 before moving the money', { kind: 'error', status: 500 }],
  ['a 503 after moving the money', { kind: 'error', status: 503, applyFirst: true }],
  ['a 200 that is not JSON', { kind: 'malformed', body: 'not-json' }],
  ['a 200 without a balance, after moving the money', { kind: 'malformed', body: 'no-balance', applyFirst: true }],
  ['a 200 with a negative balance', { kind: 'malformed', body: 'negative-balance' }],
  ['an empty 200, after moving the money', { kind: 'malformed', body: 'empty', applyFirst: true }],
  ['a connection reset after moving the money', { kind: 'reset' }],
  ['a connection reset before moving the money', { kind: 'reset', applyFirst: false }],
];

const READ_FAULTS: [string, Fault][] = [
  ...FAULTS,
  ['a refused token', { kind: 'tokenExpired' }],
  ['a 4xx other than a token refusal', { kind: 'insufficientFunds' }],
  ['the balance as a string with 6 decimals', { kind: 'balanceAsString', decimals: 6 }],
];

const tally = new Tally(
  'casino-faults',
  'Casino faults on every money route',
  'test/faults/casino-faults.test.ts',
  `Each fault the sandbox casino can script (answers just under and just over CASINO_TIMEOUT_MS=${TIMEOUT_MS} ms, 5xx before and after moving the money, malformed 200s, connection resets before and after moving the money), on cash-out, cash-in and cash-in retry, then the identical request repeated; plus the balance read and session validation (nothing written), and the casino down (walletUrl to a closed port) and back up through the admin API. After every scenario the relay and the casino journal agree exactly.`,
);
const scenario = scenarioIt(tally);

describe('casino faults on every money route', () => {
  let p: TestPlatform;
  let g: GameWorld;

  const call = (method: string, path: string, body?: unknown, world: GameWorld = g) => {
    tally.request();
    return world.call(method, path, body);
  };

  beforeAll(async () => {
    p = await startPlatform({ services: ['launcher', 'wallet', 'admin'], env: { CASINO_TIMEOUT_MS: String(TIMEOUT_MS) } });
    g = await startGameWorld(p);
  });
  afterEach(() => g.sandbox.clearFaults());
  afterAll(async () => {
    tally.write();
    await p?.stop();
    await g?.sandbox.close();
  });

  /** The body of a money call on `route`; a credit gets its bet debited first, without fault. */
  async function moneyBody(world: GameWorld, pl: Player, route: MoneyRoute): Promise<Record<string, unknown> & { transactionId: string }> {
    if (route === '/api/balance/cash-out') return betBody(world, pl, { amount: 12.5 });
    const bet = betBody(world, pl, { amount: 10 });
    tally.request();
    expect((await world.call('POST', '/api/balance/cash-out', bet)).status).toBe(200);
    return winBody(world, pl, bet, { amount: 25 });
  }

  async function expectAgreement(world: GameWorld): Promise<{ transactions: number; rounds: number }> {
    const { transactions } = await checkLedgerAgreement(p, world);
    const { rounds } = await checkRoundsConsistent(p, world);
    tally.check('ledger agreement');
    tally.check('rounds consistent with transactions');
    return { transactions, rounds };
  }

  for (const route of MONEY_ROUTES) {
    describe(route, () => {
      for (const [what, fault] of FAULTS) {
        const operation = operationOf(route);
        const expected = expectedAnswer(operation, fault, TIMEOUT_MS);
        const outcome = expected.code ? `${expected.status} ${expected.code}` : '200';
        scenario(`When the casino gives ${what} to a ${operation} (${route}), then the relay answers ${outcome} and the same request completes it with one movement`, async () => {
          const pl = await g.launchPlayer({ balance: 1000 });
          const body = await moneyBody(g, pl, route);
          g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation }, fault, 1);
          tally.fault(faultLabel(fault));

          const first = await call('POST', route, body);
          expect(first.status).toBe(expected.status);
          if (expected.code) expect(first.body).toEqual({ error: expected.code, message: expect.any(String) });
          const row = await transactionRow(p, g, body.transactionId);
          expect(row.status).toBe(expected.code ? 'FAILED' : 'SUCCESS');
          if (expected.code) expect(row.error_code).toBe(expected.code);

          const replay = await replayUntilOk(g, route, body, tally);
          expect(replay.status).toBe(200);
          const moves = g.sandbox.journal({ providerId: g.providerId, transactionId: body.transactionId });
          expect(moves).toHaveLength(1);
          expect(replay.body).toEqual({ id: pl.playerId, balance: roundBalance(moves[0].balanceAfter)!.toNumber(), username: pl.playerId });
          if (first.status === 200) expect(first.body).toEqual(replay.body);
          // A SUCCESS is replayed from the record: the casino is not asked again.
          const calls = g.sandbox.countCalls({ providerId: g.providerId, transactionId: body.transactionId });
          expect((await call('POST', route, body)).body).toEqual(replay.body);
          expect(g.sandbox.countCalls({ providerId: g.providerId, transactionId: body.transactionId })).toBe(calls);
          expect(g.sandbox.getPlayer(g.providerId, pl.playerId)!.balance).toBe(route === '/api/balance/cash-out' ? 987.5 : 1015);
          await expectAgreement(g);
        });
      }
    });
  }

  describe('balance read and session validation (the read path)', () => {
    for (const [what, fault] of READ_FAULTS) {
      const expected = expectedAnswer('balance', fault, TIMEOUT_MS);
      const outcome = expected.code ? `${expected.status} ${expected.code}` : '200';
      scenario(`When the casino gives ${what} to a balance call, then the balance read and validation answer ${outcome} and nothing is written`, async () => {
        const pl = await g.launchPlayer({ balance: 40 });
        const records = await countRecords(p, g);
        const movements = g.sandbox.journal({ providerId: g.providerId }).length;
        const match = { providerId: g.providerId, playerId: pl.playerId, operation: 'balance' as const };

        g.sandbox.setFault(match, fault, 1);
        tally.fault(faultLabel(fault));
        const read = await call('GET', `/api/account?sessionId=${pl.sessionId}&currency=${pl.currency}`);
        expect(read.status).toBe(expected.status);
        if (expected.code) expect(read.body).toEqual({ error: expected.code, message: expect.any(String) });
        else expect(read.body).toEqual({ id: pl.playerId, balance: 40, username: pl.playerId });

        g.sandbox.setFault(match, fault, 1);
        tally.fault(faultLabel(fault));
        const validation = await call('GET', `/api/v1/sessions/${pl.sessionId}?gameId=${g.gameId}`);
        expect(validation.status).toBe(expected.status);
        if (expected.code) expect(validation.body).toMatchObject({ statusCode: expected.status, error: expected.code, data: null });
        else expect(validation.body.data).toMatchObject({ valid: true, sessionId: pl.sessionId });

        await sleep(fault.kind === 'delay' ? fault.ms : 0); // a late answer must not write anything either
        expect(await countRecords(p, g)).toEqual(records);
        expect(g.sandbox.journal({ providerId: g.providerId })).toHaveLength(movements);
        tally.check('nothing written by a read');
      });
    }
  });

  describe('the casino is down, then back up', () => {
    scenario('When the casino wallet is unreachable and comes back, then every money call fails 502 while it is down and the same requests complete once it is up, with one movement each', async () => {
      const world = await startGameWorld(p, { sandbox: g.sandbox });
      const pl = await world.launchPlayer({ balance: 500 });
      const casinoAt = (walletUrl: string) => adminPut(p, `casinos/${world.providerId}`, { name: `Casino ${world.providerId}`, walletUrl });
      const readBalance = () => world.call('GET', `/api/account?sessionId=${pl.sessionId}`);
      const settled = [betBody(world, pl, { amount: 5 }), betBody(world, pl, { amount: 6 })];
      for (const bet of settled) expect((await world.call('POST', '/api/balance/cash-out', bet)).status).toBe(200);
      const pending: [MoneyRoute, Record<string, unknown> & { transactionId: string }][] = [
        ['/api/balance/cash-out', betBody(world, pl, { amount: 7 })],
        ['/api/balance/cash-in', winBody(world, pl, settled[0], { amount: 10 })],
        ['/api/balance/cash-in/retry', winBody(world, pl, settled[1], { amount: 0, reason: 'BET_LOST', appliedMultiplier: 0 })],
      ];

      expect((await casinoAt(`http://127.0.0.1:${await freePort()}/wallet`)).status).toBe(200);
      tally.fault('casino down (closed port)');
      // docs/api/admin.json: an admin change takes effect once the change bus carries it (milliseconds; the
      // deadline only bounds a stalled worker and stays far under the 30 s cache lifetime).
      await eventually(async () => (await readBalance()).status === 502, 10_000, 'the new walletUrl to take effect');
      for (const [route, body] of pending) {
        const res = await call('POST', route, body, world);
        expect(res.status).toBe(502);
        expect(res.body.error).toBe('PROVIDER_API_FAILURE');
        expect(await transactionRow(p, world, body.transactionId)).toMatchObject({ status: 'FAILED', error_code: 'PROVIDER_API_FAILURE' });
      }
      expect((await call('GET', `/api/v1/sessions/${pl.sessionId}?gameId=${world.gameId}`, undefined, world)).body.error).toBe('PROVIDER_API_FAILURE');

      expect((await casinoAt(world.walletUrl)).status).toBe(200);
      await eventually(async () => (await readBalance()).status === 200, 10_000, 'the casino to be reachable again');
      for (const [route, body] of pending) {
        expect((await replayUntilOk(world, route, body, tally)).status).toBe(200);
        expect(world.sandbox.journal({ providerId: world.providerId, transactionId: body.transactionId })).toHaveLength(1);
      }
      expect(world.sandbox.getPlayer(world.providerId, pl.playerId)!.balance).toBe(500 - 5 - 6 - 7 + 10);
      await expectAgreement(world);
    });
  });

  describe('after every scenario', () => {
    scenario('When every scenario above has been replayed, then the relay and the casino agree on every transaction of the casino', async () => {
      await sleep(JUST_OVER); // answers the relay gave up on arrive at the casino late: they must change nothing
      const { transactions, rounds } = await expectAgreement(g);
      tally.note(`In the end ${transactions} transactions and ${rounds} rounds of the casino agree with its journal.`);
    });
  });
});
