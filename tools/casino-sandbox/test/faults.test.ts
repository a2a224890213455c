import { CasinoClient } from '@relay/shared';
import { startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { SECRET, balanceBody, creditBody, debitBody, wallet } from './support';

const P = 'sbx-faults-casino';
const TIMEOUT_MS = 1000;
let sandbox: CasinoSandbox;
let client: CasinoClient;

const w = () => wallet(sandbox.walletUrl, P);
const debit = (tx: string, amount = 10, player = 'p1') => client.call(w(), 'debit', debitBody(P, player, `wt-${player}`, tx, amount));
const credit = (tx: string, amount = 10) => client.call(w(), 'credit', creditBody(P, 'p1', 'wt-p1', tx, amount));
const balance = (player = 'p1') => client.call(w(), 'balance', balanceBody(P, player, `wt-${player}`));
const roundEnded = (roundId: string) => client.call(w(), 'round-ended', { providerId: P, groupId: 'g1', roundId });
const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error?.code);
const stored = (player = 'p1') => sandbox.getPlayer(P, player)?.balance;

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  sandbox = await startCasinoSandbox({ walletSecret: SECRET });
  client = new CasinoClient({ timeoutMs: TIMEOUT_MS });
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
});

beforeEach(() => {
  sandbox.reset();
  sandbox.addPlayer({ providerId: P, playerId: 'p1', walletToken: 'wt-p1', balance: 100 });
  sandbox.addPlayer({ providerId: P, playerId: 'p2', walletToken: 'wt-p2', balance: 100 });
});

describe('sandbox scripted faults', () => {
  it('When insufficient funds is scripted once, then the next debit is refused whatever the balance and the one after passes', async () => {
    sandbox.setFault({ playerId: 'p1', operation: 'debit' }, { kind: 'insufficientFunds' }, 1);
    expect(code(await debit('tx-if-1'))).toBe('FUND_WITHDRAW_FAILED');
    expect(code(await debit('tx-if-1'))).toBe('ok');
    expect(stored()).toBe(90);
  });

  it('When token expiry is scripted, then every call of that player is AUTHENTICATION_TOKEN_EXPIRED until cleared', async () => {
    sandbox.setFault({ playerId: 'p1' }, { kind: 'tokenExpired' });
    expect(code(await balance())).toBe('AUTHENTICATION_TOKEN_EXPIRED');
    expect(code(await credit('tx-te-1'))).toBe('AUTHENTICATION_TOKEN_EXPIRED');
    expect(code(await balance('p2'))).toBe('ok');
    sandbox.setFault({ playerId: 'p2' }, { kind: 'tokenExpired', status: 400 }, 1);
    expect(await balance('p2')).toMatchObject({ ok: false, casinoStatus: 400, casinoBody: '{"error":"TOKEN_EXPIRED"}' });
    sandbox.clearFaults();
    expect(code(await balance())).toBe('ok');
  });

  it('When a 5xx is scripted, then a debit is CASHOUT_FAILED and a credit PROVIDER_API_FAILURE, with no money moved', async () => {
    sandbox.setFault({ providerId: P }, { kind: 'error', status: 503 }, 2);
    expect(code(await debit('tx-5-1'))).toBe('CASHOUT_FAILED');
    expect(code(await credit('tx-5-2'))).toBe('PROVIDER_API_FAILURE');
    expect(stored()).toBe(100);
  });

  it('When a 5xx is scripted after applying, then the money moved and the repeat returns the stored success', async () => {
    sandbox.setFault({ operation: 'debit' }, { kind: 'error', status: 500, applyFirst: true }, 1);
    expect(code(await debit('tx-5a'))).toBe('CASHOUT_FAILED');
    expect(stored()).toBe(90);
    expect(await debit('tx-5a')).toMatchObject({ ok: true, balance: 90 });
    expect(sandbox.journal({ transactionId: 'tx-5a' })).toHaveLength(1);
  });

  it('When malformed answers are scripted, then each is INVALID_PROVIDER_RESPONSE', async () => {
    for (const body of ['not-json', 'no-balance', 'negative-balance', 'empty'] as const) {
      sandbox.setFault({ operation: 'balance' }, { kind: 'malformed', body }, 1);
      expect(code(await balance())).toBe('INVALID_PROVIDER_RESPONSE');
    }
    sandbox.setFault({ operation: 'credit' }, { kind: 'malformed', applyFirst: true }, 1);
    expect(code(await credit('tx-mal'))).toBe('INVALID_PROVIDER_RESPONSE');
    expect(stored()).toBe(110);
  });

  it('When the balance is answered as a numeric string with many decimals, then the client rounds it half-up (2.675 -> 2.68)', async () => {
    sandbox.setBalance(P, 'p1', '12.675');
    sandbox.setFault({ playerId: 'p1' }, { kind: 'balanceAsString' }, 1);
    expect(await debit('tx-str', 10)).toMatchObject({ ok: true, balance: 2.68, rawBody: '{"balance":"2.675000"}' });
    sandbox.setFault({ playerId: 'p1' }, { kind: 'balanceAsString', value: '7.004999999' }, 1);
    expect(await balance()).toMatchObject({ ok: true, balance: 7 });
    expect(sandbox.getPlayer(P, 'p1')?.balanceText).toBe('2.675');
  });

  it('When a delay longer than the time-out is scripted, then INTEGRATION_TIMED_OUT and the casino still applies the debit late', async () => {
    sandbox.setFault({ operation: 'debit' }, { kind: 'delay', ms: TIMEOUT_MS + 300 }, 1);
    expect(code(await debit('tx-late'))).toBe('INTEGRATION_TIMED_OUT');
    expect(stored()).toBe(100);
    await until(() => stored() === 90);
    expect(await debit('tx-late')).toMatchObject({ ok: true, balance: 90 });
  });

  it('When a delay applies the movement first, then the money moved before the time-out', async () => {
    sandbox.setFault({ operation: 'credit' }, { kind: 'delay', ms: TIMEOUT_MS + 300, applyFirst: true }, 1);
    expect(code(await credit('tx-early'))).toBe('INTEGRATION_TIMED_OUT');
    expect(stored()).toBe(110);
  });

  it('When a delay shorter than the time-out is scripted, then the answer arrives late but fine', async () => {
    sandbox.setFault({ operation: 'balance' }, { kind: 'delay', ms: 100 }, 1);
    const started = Date.now();
    expect(code(await balance())).toBe('ok');
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('When a connection reset is scripted, then the debit is applied, the client sees PROVIDER_API_FAILURE, and the repeat resolves it', async () => {
    sandbox.setFault({ operation: 'debit', playerId: 'p1' }, { kind: 'reset' }, 1);
    expect(code(await debit('tx-reset'))).toBe('PROVIDER_API_FAILURE');
    expect(stored()).toBe(90);
    expect(sandbox.calls({ transactionId: 'tx-reset' })[0]).toMatchObject({ reset: true, applied: true, fault: 'reset' });
    expect(await debit('tx-reset')).toMatchObject({ ok: true, balance: 90 });
    expect(sandbox.journal({ transactionId: 'tx-reset' })).toHaveLength(1);
  });

  it('When a reset without applying is scripted, then no money moves', async () => {
    sandbox.setFault({ operation: 'debit' }, { kind: 'reset', applyFirst: false }, 1);
    expect(code(await debit('tx-reset-0'))).toBe('PROVIDER_API_FAILURE');
    expect(stored()).toBe(100);
  });

  it('When round-ended faults are scripted, then 403 is AUTHENTICATION_TOKEN_EXPIRED, 5xx PROVIDER_API_FAILURE and a delay INTEGRATION_TIMED_OUT', async () => {
    sandbox.setFault({ operation: 'round-ended' }, { kind: 'error', status: 403 }, 1);
    expect(code(await roundEnded('r-403'))).toBe('AUTHENTICATION_TOKEN_EXPIRED');
    sandbox.setFault({ operation: 'round-ended' }, { kind: 'error', status: 502 }, 1);
    expect(code(await roundEnded('r-502'))).toBe('PROVIDER_API_FAILURE');
    sandbox.setFault({ operation: 'round-ended' }, { kind: 'delay', ms: TIMEOUT_MS + 200 }, 1);
    expect(code(await roundEnded('r-slow'))).toBe('INTEGRATION_TIMED_OUT');
    expect(code(await roundEnded('r-ok'))).toBe('ok');
    await until(() => sandbox.roundEndedCount({ roundId: 'r-slow' }) === 1);
    expect(sandbox.roundEndedCount({ providerId: P })).toBe(2); // the slow one and the good one
  });

  it('When faults overlap, then the latest matching one wins and a spent one gives way to the persistent one', async () => {
    sandbox.setFault({ providerId: P }, { kind: 'error', status: 500 });
    sandbox.setFault({ providerId: P, playerId: 'p1' }, { kind: 'insufficientFunds' }, 1);
    expect(code(await debit('tx-ov-1'))).toBe('FUND_WITHDRAW_FAILED');
    expect(code(await debit('tx-ov-2'))).toBe('CASHOUT_FAILED');
    expect(code(await debit('tx-ov-3', 1, 'p2'))).toBe('CASHOUT_FAILED');
    expect(sandbox.faults()).toHaveLength(1);
    const id = sandbox.faults()[0].id;
    expect(sandbox.removeFault(id)).toBe(true);
    expect(code(await debit('tx-ov-4'))).toBe('ok');
  });
});
