import { CasinoClient } from '@relay/shared';
import { startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { SECRET, balanceBody, creditBody, debitBody, rawPost, wallet } from './support';

const P = 'sbx-wallet-casino';
let sandbox: CasinoSandbox;
let client: CasinoClient;

beforeAll(async () => {
  sandbox = await startCasinoSandbox({ walletSecret: SECRET });
  client = new CasinoClient({ timeoutMs: 2000 });
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
});

beforeEach(() => sandbox.reset());

describe('sandbox casino wallet', () => {
  it('When the relay client reads a balance, then the sandbox answers the exact ledger balance and the username', async () => {
    sandbox.addPlayer({ providerId: P, playerId: 'p1', walletToken: 'wt-1', balance: 100, username: 'Ann' });
    const r = await client.call(wallet(sandbox.walletUrl, P), 'balance', balanceBody(P, 'p1', 'wt-1'));
    expect(r).toMatchObject({ ok: true, balance: 100, username: 'Ann', status: 200 });
    expect(sandbox.countCalls({ operation: 'balance', providerId: P })).toBe(1);
  });

  it('When a debit and a credit are applied, then the balances move exactly and the journal records both', async () => {
    sandbox.addPlayer({ providerId: P, playerId: 'p1', walletToken: 'wt-1', balance: '0.3' });
    const w = wallet(sandbox.walletUrl, P);
    expect(await client.call(w, 'debit', debitBody(P, 'p1', 'wt-1', 'tx-d1', 0.1))).toMatchObject({ ok: true, balance: 0.2 });
    expect(await client.call(w, 'credit', creditBody(P, 'p1', 'wt-1', 'tx-c1', 0.25))).toMatchObject({ ok: true, balance: 0.45 });
    expect(sandbox.getPlayer(P, 'p1')).toMatchObject({ balance: 0.45, balanceText: '0.45' });
    expect(sandbox.journal({ providerId: P })).toEqual([
      expect.objectContaining({ playerId: 'p1', transactionId: 'tx-d1', operation: 'debit', amount: 0.1, balanceAfter: 0.2, roundId: 'round-tx-d1' }),
      expect.objectContaining({ playerId: 'p1', transactionId: 'tx-c1', operation: 'credit', amount: 0.25, balanceAfter: 0.45 }),
    ]);
    expect(sandbox.journal()[0].at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('When the same debit transactionId is repeated, then money moves once and the first result is returned', async () => {
    sandbox.addPlayer({ providerId: P, playerId: 'p1', walletToken: 'wt-1', balance: 50 });
    const w = wallet(sandbox.walletUrl, P);
    const first = await client.call(w, 'debit', debitBody(P, 'p1', 'wt-1', 'tx-rep', 10));
    const again = await client.call(w, 'debit', debitBody(P, 'p1', 'wt-1', 'tx-rep', 10));
    expect(first).toMatchObject({ ok: true, balance: 40 });
    expect(again).toMatchObject({ ok: true, balance: 40 });
    expect(sandbox.getPlayer(P, 'p1')?.balance).toBe(40);
    expect(sandbox.journal({ transactionId: 'tx-rep' })).toHaveLength(1);
    expect(sandbox.calls({ transactionId: 'tx-rep' }).map((c) => c.replayed ?? false)).toEqual([false, true]);
  });

  it('When a credit transactionId is repeated after the balance changed, then the stored first answer is returned', async () => {
    sandbox.addPlayer({ providerId: P, playerId: 'p1', walletToken: 'wt-1', balance: 5 });
    const w = wallet(sandbox.walletUrl, P);
    await client.call(w, 'credit', creditBody(P, 'p1', 'wt-1', 'tx-cr', 5));
    await client.call(w, 'debit', debitBody(P, 'p1', 'wt-1', 'tx-other', 1));
    expect(await client.call(w, 'credit', creditBody(P, 'p1', 'wt-1', 'tx-cr', 5))).toMatchObject({ ok: true, balance: 10 });
    expect(sandbox.getPlayer(P, 'p1')?.balance).toBe(9);
  });

  it('When the funds are insufficient, then 400 INSUFFICIENT_FUNDS, nothing moves, and a retry after a top-up succeeds', async () => {
    sandbox.addPlayer({ providerId: P, playerId: 'p1', walletToken: 'wt-1', balance: 5 });
    const w = wallet(sandbox.walletUrl, P);
    const refused = await client.call(w, 'debit', debitBody(P, 'p1', 'wt-1', 'tx-poor', 10));
    expect(refused).toMatchObject({ ok: false, casinoStatus: 400, casinoBody: '{"error":"INSUFFICIENT_FUNDS"}' });
    expect(!refused.ok && refused.error.code).toBe('FUND_WITHDRAW_FAILED');
    expect(sandbox.journal()).toHaveLength(0);
    sandbox.setBalance(P, 'p1', 20);
    expect(await client.call(w, 'debit', debitBody(P, 'p1', 'wt-1', 'tx-poor', 10))).toMatchObject({ ok: true, balance: 10 });
  });

  it('When the player is unknown or the walletToken is wrong, then 401 TOKEN_EXPIRED', async () => {
    sandbox.addPlayer({ providerId: P, playerId: 'p1', walletToken: 'wt-1', balance: 5 });
    for (const body of [balanceBody(P, 'ghost', 'wt-1'), balanceBody(P, 'p1', 'stolen'), balanceBody('other-casino', 'p1', 'wt-1')]) {
      expect(await rawPost(`${sandbox.walletUrl}/balance`, body)).toEqual({ status: 401, body: { error: 'TOKEN_EXPIRED' } });
    }
    const r = await client.call(wallet(sandbox.walletUrl, P), 'debit', debitBody(P, 'p1', 'nope', 'tx-tok', 1));
    expect(!r.ok && r.error.code).toBe('AUTHENTICATION_TOKEN_EXPIRED');
  });

  it('When a body breaks the contract, then 400 BAD_REQUEST names the field and nothing moves', async () => {
    sandbox.addPlayer({ providerId: P, playerId: 'p1', walletToken: 'wt-1', balance: 5 });
    const { gameId: _drop, ...noGame } = debitBody(P, 'p1', 'wt-1', 'tx-bad', 1);
    expect(await rawPost(`${sandbox.walletUrl}/debit`, noGame)).toMatchObject({ status: 400, body: { error: 'BAD_REQUEST', message: expect.stringContaining('gameId') } });
    expect(await rawPost(`${sandbox.walletUrl}/debit`, { ...debitBody(P, 'p1', 'wt-1', 'tx-bad', 1), amount: '1' })).toMatchObject({ status: 400 });
    expect(sandbox.getPlayer(P, 'p1')?.balance).toBe(5);
  });

  it('When round-ended notifications arrive, then they are answered 200 and counted', async () => {
    const w = wallet(sandbox.walletUrl, P);
    expect(await client.call(w, 'round-ended', { providerId: P, groupId: 'g1', roundId: 'r-1' })).toMatchObject({ ok: true, status: 200 });
    await client.call(w, 'round-ended', { providerId: P, groupId: 'g1', roundId: 'r-2' });
    expect(sandbox.roundEndedCount({ providerId: P })).toBe(2);
    expect(sandbox.roundEnded({ roundId: 'r-1' })).toEqual([expect.objectContaining({ providerId: P, groupId: 'g1', roundId: 'r-1' })]);
  });

  it('When calls are logged, then no record holds the walletToken', async () => {
    sandbox.addPlayer({ providerId: P, playerId: 'p1', walletToken: 'very-secret-wallet-token', balance: 5 });
    await client.call(wallet(sandbox.walletUrl, P), 'debit', debitBody(P, 'p1', 'very-secret-wallet-token', 'tx-log', 1));
    expect(JSON.stringify(sandbox.calls())).not.toContain('very-secret-wallet-token');
    expect(JSON.stringify(sandbox.ledger())).not.toContain('very-secret-wallet-token');
    expect(sandbox.calls({ transactionId: 'tx-log' })[0]).toMatchObject({ operation: 'debit', signature: 'valid', status: 200, applied: true });
  });
});

describe('sandbox casino signatures', () => {
  beforeEach(() => sandbox.addPlayer({ providerId: P, playerId: 'p1', walletToken: 'wt-1', balance: 5 }));

  it('When the signature is missing, wrong or made with another secret, then 401 BAD_SIGNATURE and nothing moves', async () => {
    const url = `${sandbox.walletUrl}/debit`;
    const body = debitBody(P, 'p1', 'wt-1', 'tx-sig', 1);
    expect(await rawPost(url, body, { signature: null })).toEqual({ status: 401, body: { error: 'BAD_SIGNATURE' } });
    expect(await rawPost(url, body, { signature: `v1=${'0'.repeat(64)}` })).toEqual({ status: 401, body: { error: 'BAD_SIGNATURE' } });
    expect(await rawPost(url, body, { secret: 'another-secret' })).toEqual({ status: 401, body: { error: 'BAD_SIGNATURE' } });
    const r = await client.call(wallet(sandbox.walletUrl, P, 'another-secret'), 'debit', body);
    expect(!r.ok && r.error.code).toBe('AUTHENTICATION_TOKEN_EXPIRED'); // a 401 from the casino
    expect(sandbox.getPlayer(P, 'p1')?.balance).toBe(5);
    expect(sandbox.calls({ transactionId: 'tx-sig' }).map((c) => c.signature)).toEqual(['missing', 'mismatch', 'mismatch', 'mismatch']);
  });

  it('When the timestamp is older than 5 minutes, then the request is refused', async () => {
    const body = balanceBody(P, 'p1', 'wt-1');
    const now = Math.floor(Date.now() / 1000);
    expect(await rawPost(`${sandbox.walletUrl}/balance`, body, { timestamp: now - 301 })).toMatchObject({ status: 401, body: { error: 'BAD_SIGNATURE' } });
    expect(await rawPost(`${sandbox.walletUrl}/balance`, body, { timestamp: now - 200 })).toMatchObject({ status: 200, body: { balance: 5 } });
  });

  it('When a casino has its own secret, then its calls are checked with it and the others with the default', async () => {
    sandbox.addPlayer({ providerId: 'sbx-own-secret', playerId: 'p1', walletToken: 'wt-1', balance: 7 });
    sandbox.setSecret('sbx-own-secret', 'own-secret');
    try {
      const own = await client.call(wallet(sandbox.walletUrl, 'sbx-own-secret', 'own-secret'), 'balance', balanceBody('sbx-own-secret', 'p1', 'wt-1'));
      expect(own).toMatchObject({ ok: true, balance: 7 });
      const withDefault = await client.call(wallet(sandbox.walletUrl, 'sbx-own-secret'), 'balance', balanceBody('sbx-own-secret', 'p1', 'wt-1'));
      expect(withDefault.ok).toBe(false);
      expect(await client.call(wallet(sandbox.walletUrl, P), 'balance', balanceBody(P, 'p1', 'wt-1'))).toMatchObject({ ok: true, balance: 5 });
    } finally {
      sandbox.setSecret('sbx-own-secret', null);
    }
  });

  it('When a casino uses its own walletUrl path under /wallet, then the sandbox serves it the same', async () => {
    expect(await client.call(wallet(sandbox.walletUrlFor(P), P), 'balance', balanceBody(P, 'p1', 'wt-1'))).toMatchObject({ ok: true, balance: 5 });
  });
});
