import { SANDBOX_BREAKS, type SandboxBreak } from '@relay/casino-sandbox';
import { certifyCasino, reportJunit } from '../src';
import { config, sandboxCasino } from './support';

/**
 * The kit catches each rule a casino can break: a sandbox started with one switch fails exactly
 * the check that names the rule; checks built on that one are skipped, every other one passes.
 */
interface Expected {
  fails: string[];
  skipped?: string[];
  exitCode: 0 | 1;
}

const MONEY_CHECKS = ['signature-refused', 'timestamp-stale', 'debit-applies', 'debit-idempotent', 'debit-concurrent', 'credit-applies', 'credit-idempotent', 'credit-zero', 'insufficient-funds', 'decimals'];

const EXPECTED: Record<SandboxBreak, Expected> = {
  'no-signature-check': { fails: ['signature-refused'], exitCode: 1 },
  'no-timestamp-check': { fails: ['timestamp-stale'], exitCode: 1 },
  'non-idempotent-debit': { fails: ['debit-idempotent'], skipped: ['debit-concurrent'], exitCode: 1 },
  'non-idempotent-credit': { fails: ['credit-idempotent'], exitCode: 1 },
  'debit-race': { fails: ['debit-concurrent'], exitCode: 1 },
  'insufficient-funds-5xx': { fails: ['insufficient-funds'], exitCode: 1 },
  'float-balance': { fails: ['decimals'], exitCode: 1 },
  'refuse-zero-credit': { fails: ['credit-zero'], exitCode: 1 },
  'accept-unknown-players': { fails: ['unknown-player'], exitCode: 1 },
  'accept-expired-tokens': { fails: ['token-expired'], exitCode: 1 },
  'round-ended-fails': { fails: ['round-ended'], exitCode: 1 },
  // Without a readable balance nothing about money can be verified: those checks do not run.
  'unreadable-balance': { fails: ['balance-read'], skipped: [...MONEY_CHECKS, 'latency-debit', 'latency-credit'], exitCode: 1 },
  // Advisory findings are reported but do not fail the certification.
  'text-content-type': { fails: ['content-type'], exitCode: 0 },
  'no-keep-alive': { fails: ['keep-alive'], exitCode: 0 },
};

describe('relay-certify against sandbox casinos that each break one rule', () => {
  it('When the sandbox gains a switch, then this suite says which check must catch it', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(SANDBOX_BREAKS).sort());
  });

  it.each(Object.entries(EXPECTED) as [SandboxBreak, Expected][])(
    'When the casino has the %s break, then exactly the check for that rule fails',
    async (rule, expected) => {
      const sandbox = await sandboxCasino([rule]);
      try {
        // The test players only: accept-unknown-players opens accounts for strangers.
        const players = () => sandbox.ledger().filter((p) => ['funded-1', 'poor-1', 'expired-1'].includes(p.playerId));
        const before = players().map((p) => [p.playerId, p.balance]);
        const report = await certifyCasino(config(sandbox));
        const ids = (status: string) => report.checks.filter((c) => c.status === status).map((c) => c.id);
        expect(ids('fail')).toEqual(expected.fails);
        expect(ids('skipped')).toEqual(expected.skipped ?? []);
        expect(report.exitCode).toBe(expected.exitCode);
        for (const failed of report.checks.filter((c) => c.status === 'fail')) expect(failed.detail).not.toBe('');
        // Whatever the broken wallet did, the kit puts the balances back (to the cent: a float wallet cannot hold more).
        expect(players().map((p) => [p.playerId, Math.round(p.balance * 100) / 100])).toEqual(before);
      } finally {
        await sandbox.close();
      }
    },
  );

  it('When round-ended answers slower than the latency target, then only the advisory latency check flags it, the run is certified, and JUnit counts no failure', async () => {
    const sandbox = await sandboxCasino();
    try {
      sandbox.setFault({ operation: 'round-ended' }, { kind: 'delay', ms: 2500 });
      const report = await certifyCasino(config(sandbox));
      expect(report.checks.filter((c) => c.status !== 'pass').map((c) => [c.id, c.detail])).toEqual([['latency-round-ended', expect.stringMatching(/^p95 \d+ ms is above the 2000 ms target$/)]]);
      expect(report.exitCode).toBe(0);
      const junit = reportJunit(report);
      expect(junit).toMatch(/<testsuites name="relay-certify" tests="20" failures="0"/);
      expect(junit).toMatch(/<testcase name="latency-round-ended" classname="relay-certify.advisory">\s*<system-out>advisory fail: p95/);
    } finally {
      await sandbox.close();
    }
  });

  it('When debits are not idempotent, then the report says the repeat moved money and the sandbox journal shows it did', async () => {
    const sandbox = await sandboxCasino(['non-idempotent-debit']);
    try {
      const report = await certifyCasino(config(sandbox));
      const check = report.checks.find((c) => c.id === 'debit-idempotent')!;
      expect(check.detail).toMatch(/^the repeat moved money: 148\.77 to 147\.54$/);
      const repeated = sandbox.journal({ operation: 'debit' }).filter((e, _i, all) => all.filter((o) => o.transactionId === e.transactionId).length > 1);
      expect(repeated).toHaveLength(2);
    } finally {
      await sandbox.close();
    }
  });
});
