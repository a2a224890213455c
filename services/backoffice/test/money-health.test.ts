import type { Player } from '../../../test/game';
import { playRound, startMoneyWorld, type MoneyWorld } from './money-support';
import { betBody } from '../../wallet/test/money-support';

/**
 * Casino wallet health, from the relay's own records of each debit and credit attempt: played
 * through the sandbox casino, with a casino failure and a business refusal injected, and read in
 * every scope.
 */
let w: MoneyWorld;
let pa: Player;
let pb: Player;

interface Health { providerId: string; operation: string; window: string; attempts: number; ok: number; declined: number; casinoErrors: number; errorRate: number; p50Ms: number | null; p99Ms: number | null }

beforeAll(async () => {
  w = await startMoneyWorld();
  pa = await w.a.launchPlayer({ balance: 1000 });
  pb = await w.b.launchPlayer({ balance: 1000 });
  for (let i = 0; i < 3; i++) await playRound(w.a, pa, 1, 2);
  await playRound(w.b, pb, 1, 0);
  // Casino A fails one debit with a 500, and refuses one for insufficient funds (a 4xx: a business answer).
  w.sandbox.setFault({ providerId: w.a.providerId, operation: 'debit' }, { kind: 'error', status: 500 }, 1);
  expect((await w.a.call('POST', '/api/balance/cash-out', betBody(w.a, pa, { amount: 1 }))).status).not.toBe(200);
  w.sandbox.setFault({ providerId: w.a.providerId, operation: 'debit' }, { kind: 'insufficientFunds' }, 1);
  expect((await w.a.call('POST', '/api/balance/cash-out', betBody(w.a, pa, { amount: 1 }))).status).not.toBe(200);
}, 90000);
afterAll(async () => {
  await w?.stop();
});

const row = (rows: Health[], providerId: string, operation: string, window: string) => rows.find((r) => r.providerId === providerId && r.operation === operation && r.window === window);

describe('casino wallet health', () => {
  it('When a platform admin looks, then each casino shows attempts, failures, declines, error rate and latency per operation for the hour and the day', async () => {
    const admin = await w.as('admin', { type: 'platform' });
    const res = await admin('GET', 'money/wallet-health');
    expect(res.status).toBe(200);
    const rows = res.body.data as Health[];
    for (const window of ['hour', 'day']) {
      const debitA = row(rows, w.a.providerId, 'debit', window)!;
      expect(debitA).toMatchObject({ attempts: 5, ok: 3, declined: 1, casinoErrors: 1, errorRate: 0.2 });
      expect(debitA.p50Ms).toBeGreaterThan(0);
      expect(debitA.p99Ms).toBeGreaterThanOrEqual(debitA.p50Ms!);
      expect(row(rows, w.a.providerId, 'credit', window)).toMatchObject({ attempts: 3, ok: 3, casinoErrors: 0, errorRate: 0 });
      expect(row(rows, w.b.providerId, 'debit', window)).toMatchObject({ attempts: 1, ok: 1, errorRate: 0 });
    }
  });

  it('When a casino or a studio account looks, then it sees only its own casino or studio', async () => {
    const casinoB = await w.as('support', { type: 'casino', providerId: w.b.providerId });
    const fromB = (await casinoB('GET', 'money/wallet-health')).body.data as Health[];
    expect(fromB.length).toBeGreaterThan(0);
    expect(new Set(fromB.map((r) => r.providerId))).toEqual(new Set([w.b.providerId]));
    // Naming another casino is not a way around the scope: nothing comes back.
    expect((await casinoB('GET', `money/wallet-health?providerId=${w.a.providerId}`)).body.data).toEqual([]);
    const studioA = await w.as('finance', { type: 'studio', groupId: w.a.groupId });
    const fromA = (await studioA('GET', 'money/wallet-health')).body.data as Health[];
    expect(new Set(fromA.map((r) => r.providerId))).toEqual(new Set([w.a.providerId]));
  });

  it('When the query names an unknown parameter, then 400 and nothing else', async () => {
    const admin = await w.as('admin', { type: 'platform' });
    expect((await admin('GET', 'money/wallet-health?window=week')).status).toBe(400);
  });
});
