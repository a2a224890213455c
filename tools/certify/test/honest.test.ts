import type { CasinoSandbox } from '@relay/casino-sandbox';
import { certifyCasino, REQUIRED_CHECK_IDS } from '../src';
import { balances, config, PROVIDER, sandboxCasino, START } from './support';

let sandbox: CasinoSandbox;

beforeAll(async () => {
  sandbox = await sandboxCasino();
});

afterAll(async () => {
  await sandbox.close();
});

describe('relay-certify against the honest sandbox casino', () => {
  it('When the honest sandbox is certified, then every required and advisory check passes and the exit status is 0', async () => {
    const report = await certifyCasino(config(sandbox));
    expect(report.checks.filter((c) => c.status !== 'pass').map((c) => `${c.id}: ${c.detail}`)).toEqual([]);
    expect(report.checks.filter((c) => c.required).map((c) => c.id)).toEqual(REQUIRED_CHECK_IDS);
    expect(REQUIRED_CHECK_IDS).toEqual(
      expect.arrayContaining(['signature-refused', 'timestamp-stale', 'balance-read', 'debit-applies', 'debit-idempotent', 'debit-concurrent', 'credit-applies', 'credit-idempotent', 'credit-zero', 'insufficient-funds', 'token-expired', 'unknown-player', 'round-ended', 'decimals']),
    );
    expect(report.checks.filter((c) => !c.required).map((c) => c.id)).toEqual(['keep-alive', 'content-type', 'latency-balance', 'latency-debit', 'latency-credit', 'latency-round-ended']);
    expect(report.exitCode).toBe(0);
  });

  it('When a run ends, then each test player holds exactly what it held before, and the run really moved money in between', async () => {
    const before = balances(sandbox);
    const journalBefore = sandbox.journal().length;
    const report = await certifyCasino(config(sandbox));
    expect(balances(sandbox)).toEqual(before);
    expect(before).toMatchObject({ 'funded-1': '150', 'poor-1': '0.5' });
    expect(Number(START.funded)).toBe(150);
    expect(sandbox.journal().length - journalBefore).toBeGreaterThan(10);
    expect(report.balances).toEqual([
      { player: 'funded', before: '150', after: '150', restored: true },
      { player: 'poor', before: '0.5', after: '0.5', restored: true },
    ]);
  });

  it('When the kit runs twice, then every transactionId of the second run is new and carries that run id', async () => {
    const ids = async () => {
      const seen = new Set(sandbox.journal().map((e) => e.transactionId));
      const report = await certifyCasino(config(sandbox));
      const fresh = sandbox.journal().map((e) => e.transactionId).filter((id) => !seen.has(id));
      return { runId: report.runId, fresh };
    };
    const first = await ids();
    const second = await ids();
    expect(first.runId).not.toBe(second.runId);
    expect(second.fresh.length).toBeGreaterThan(10);
    for (const id of second.fresh) expect(id.startsWith(`${second.runId}-`)).toBe(true);
    expect(second.fresh.filter((id) => first.fresh.includes(id))).toEqual([]);
  });

  it('When the config has no poor and no expired player, then token-expired is skipped, insufficient-funds uses the funded player, and the run still passes', async () => {
    const before = balances(sandbox);
    const report = await certifyCasino(config(sandbox, { poor: false, expired: false }));
    const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
    expect(byId['token-expired']).toMatchObject({ status: 'skipped', detail: 'not run: the config has no expired player' });
    expect(byId['insufficient-funds'].status).toBe('pass');
    // One unit more than the funded player held at that moment (the run had moved it a little).
    const amount = Number(/^a debit of (\d+\.\d\d) EUR for the funded player$/.exec(byId['insufficient-funds'].sent)?.[1]);
    expect(amount).toBeGreaterThan(140);
    expect(report.exitCode).toBe(0);
    expect(balances(sandbox)).toEqual(before);
  });

  it('When the wallet writes balances as numeric strings with six decimals, then every required check still passes', async () => {
    const fault = sandbox.setFault({ providerId: PROVIDER }, { kind: 'balanceAsString', decimals: 6 });
    try {
      const report = await certifyCasino(config(sandbox));
      expect(report.checks.find((c) => c.id === 'balance-read')?.received).toMatch(/^200 \{"balance":"150\.000000"\}$/);
      expect(report.checks.find((c) => c.id === 'debit-applies')?.received).toMatch(/^200 \{"balance":"\d+\.770000"\}$/);
      expect(report.checks.filter((c) => c.required && c.status !== 'pass').map((c) => c.id)).toEqual([]);
      expect(report.exitCode).toBe(0);
    } finally {
      sandbox.removeFault(fault);
    }
  });

  it('When the kit reports, then no walletToken or walletSecret appears anywhere in it', async () => {
    const report = await certifyCasino(config(sandbox));
    const text = JSON.stringify(report);
    for (const secret of ['wt-funded-secret', 'wt-poor-secret', 'wt-expired-old', 'certify-wallet-secret']) expect(text).not.toContain(secret);
  });
});
