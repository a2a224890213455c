import { randomUUID } from 'node:crypto';
import type { Fault } from '@relay/casino-sandbox';
import { http } from '../../../test/platform';
import { bo } from '../../../test/backoffice';
import type { Player } from '../../../test/game';
import { eventually } from '../../../test/faults/support/money';
import { betBody, winBody } from '../../wallet/test/money-support';
import { startMoneyWorld, type MoneyWorld } from './money-support';

/**
 * Each kind of reconciliation item created by a real fault of the sandbox casino, seen in the
 * queue (in scope only), acknowledged and resolved by a person (audited), and closed by the
 * ledger's own resolution: the game repeats the call, the round settles.
 */
// A casino answer held PENDING_ANSWER_MS leaves 2 s to see the PENDING item (due after 1 s) and still
// arrives 2 s before the time-out, so neither side of it depends on a loaded machine's timing.
const CASINO_TIMEOUT_MS = 5000;
const PENDING_ANSWER_MS = 3000;
let w: MoneyWorld;
let pl: Player;

beforeAll(async () => {
  w = await startMoneyWorld({
    CASINO_TIMEOUT_MS: String(CASINO_TIMEOUT_MS),
    RECONCILIATION_PENDING_SECONDS: '1',
    RECONCILIATION_OPEN_ROUND_SECONDS: '1',
  });
  pl = await w.a.launchPlayer({ balance: 10_000 });
}, 60000);
afterEach(() => w.sandbox.clearFaults());
afterAll(async () => {
  await w?.stop();
});

const admin = (path: string) => http('GET', bo(w.p, path), { token: w.p.adminToken });
const item = (kind: string, recordId: string) => admin(`money/reconciliation/items/${kind}/${w.a.providerId}/${recordId}`);
const debit = (body: object) => w.a.call('POST', '/api/balance/cash-out', body);
const credit = (body: object) => w.a.call('POST', '/api/balance/cash-in', body);

const UNCLEAR_DEBITS: [string, Fault, string][] = [
  ['a 503 after the casino applied the debit', { kind: 'error', status: 503, applyFirst: true }, 'CASHOUT_FAILED'],
  ['a connection reset after the request was sent', { kind: 'reset' }, 'PROVIDER_API_FAILURE'],
  ['a malformed answer after the casino applied it', { kind: 'malformed', body: 'no-balance', applyFirst: true }, 'INVALID_PROVIDER_RESPONSE'],
];

describe('When a debit fails after the casino may have applied it', () => {
  it.each(UNCLEAR_DEBITS)('then %s is a DEBIT_UNCLEAR item until the game repeats the debit', async (_label, fault, code) => {
    const bet = betBody(w.a, pl, { amount: 12.34 });
    w.sandbox.setFault({ providerId: w.a.providerId, operation: 'debit' }, fault, 1);
    expect((await debit(bet)).status).toBeGreaterThanOrEqual(500);
    expect(w.sandbox.journal({ providerId: w.a.providerId, transactionId: bet.transactionId })).toHaveLength(1); // the casino holds the money

    const open = await item('DEBIT_UNCLEAR', bet.transactionId);
    expect(open.status).toBe(200);
    expect(open.body.data).toMatchObject({ state: 'OPEN', amount: 12.34, currency: 'EUR', errorCode: code, groupId: w.a.groupId, roundId: bet.roundId });
    expect(open.body.data.suggestedAction).toMatch(/same transactionId/);
    expect(open.body.data.storyLink).toBe(`/backoffice/v1/money/rounds/${w.a.providerId}/${bet.roundId}/story`);

    expect((await debit(bet)).status).toBe(200); // the ledger's own resolution: the casino answers its stored outcome
    const closed = await item('DEBIT_UNCLEAR', bet.transactionId);
    expect([closed.status, closed.body.data.state, closed.body.data.recordStatus]).toEqual([200, 'CLOSED_BY_LEDGER', 'SUCCESS']);
    expect(w.sandbox.journal({ providerId: w.a.providerId, transactionId: bet.transactionId })).toHaveLength(1);
  });
});

describe('When a settling credit fails', () => {
  it('then a 5xx after applying leaves a CREDIT_OWED and a ROUND_OPEN item, which support acknowledges and the repeated credit closes', async () => {
    const bet = betBody(w.a, pl, { amount: 5 });
    expect((await debit(bet)).status).toBe(200);
    const win = winBody(w.a, pl, bet, { amount: 17.5, appliedMultiplier: 3.5 });
    w.sandbox.setFault({ providerId: w.a.providerId, operation: 'credit' }, { kind: 'error', status: 500, applyFirst: true }, 1);
    expect((await credit(win)).status).toBe(502);

    const owed = await item('CREDIT_OWED', win.transactionId);
    expect(owed.body.data).toMatchObject({ state: 'OPEN', amount: 17.5, errorCode: 'PROVIDER_API_FAILURE' });
    expect(owed.body.data.suggestedAction).toMatch(/owed 17.5 EUR/);
    await eventually(async () => (await item('ROUND_OPEN', bet.roundId)).body.data?.state === 'OPEN', 10_000, 'the round to count as open too long');

    // A person acknowledges and resolves with a note; the audit trail records both.
    const support = await w.as('support', { type: 'casino', providerId: w.a.providerId });
    const path = `money/reconciliation/items/CREDIT_OWED/${w.a.providerId}/${win.transactionId}`;
    const ack = await support('POST', `${path}/acknowledge`, { note: 'Studio asked to retry' });
    expect([ack.status, ack.body.data.state, ack.body.data.note]).toEqual([200, 'ACKNOWLEDGED', 'Studio asked to retry']);
    expect((await support('POST', `${path}/acknowledge`, { note: 'again' })).body.error).toBe('STATE_CONFLICT');
    expect((await support('POST', `${path}/resolve`, {})).status).toBe(400);
    const audit = await admin(`audit?action=reconciliation.acknowledge&target=${encodeURIComponent(`reconciliation/CREDIT_OWED/${w.a.providerId}/${win.transactionId}`)}`);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ before: { state: 'OPEN' }, after: { state: 'ACKNOWLEDGED', note: 'Studio asked to retry' } });

    const listed = await admin(`money/reconciliation/items?providerId=${w.a.providerId}&state=ACKNOWLEDGED`);
    expect(listed.body.data.map((i: any) => i.recordId)).toContain(win.transactionId);

    // The game repeats the credit: the ledger settles the round and both items close by themselves.
    expect((await credit(win)).status).toBe(200);
    expect((await item('CREDIT_OWED', win.transactionId)).body.data).toMatchObject({ state: 'CLOSED_BY_LEDGER', note: 'Studio asked to retry' });
    expect((await item('ROUND_OPEN', bet.roundId)).body.data.state).toBe('CLOSED_BY_LEDGER');
    const after = await admin(`money/reconciliation/items?providerId=${w.a.providerId}`);
    expect(after.body.data.map((i: any) => i.recordId)).not.toContain(win.transactionId);
    expect((await support('POST', `${path}/resolve`, { note: 'late' })).body.error).toBe('STATE_CONFLICT');
    expect(w.sandbox.journal({ providerId: w.a.providerId, transactionId: win.transactionId })).toHaveLength(1);
  });

  it('then a credit answered after the time-out is owed until repeated', async () => {
    const bet = betBody(w.a, pl, { amount: 2 });
    expect((await debit(bet)).status).toBe(200);
    const win = winBody(w.a, pl, bet, { amount: 4, appliedMultiplier: 2 });
    w.sandbox.setFault({ providerId: w.a.providerId, operation: 'credit' }, { kind: 'delay', ms: CASINO_TIMEOUT_MS + 700, applyFirst: true }, 1);
    expect((await credit(win)).status).toBe(408);
    expect((await item('CREDIT_OWED', win.transactionId)).body.data).toMatchObject({ state: 'OPEN', errorCode: 'INTEGRATION_TIMED_OUT' });
    expect((await credit(win)).status).toBe(200);
    expect((await item('CREDIT_OWED', win.transactionId)).body.data.state).toBe('CLOSED_BY_LEDGER');
  });
});

describe('When the casino answers slower than the pending threshold', () => {
  it('then the PENDING transaction is an item while nobody knows, and closes when the answer is recorded', async () => {
    const bet = betBody(w.a, pl, { amount: 3 });
    w.sandbox.setFault({ providerId: w.a.providerId, operation: 'debit' }, { kind: 'delay', ms: PENDING_ANSWER_MS }, 1);
    const answer = debit(bet);
    await eventually(async () => (await item('PENDING_ABANDONED', bet.transactionId)).body.data?.state === 'OPEN', PENDING_ANSWER_MS, 'the pending item');
    const pending = await item('PENDING_ABANDONED', bet.transactionId);
    expect(pending.body.data).toMatchObject({ state: 'OPEN', category: 'CASH_OUT', amount: 3 });
    expect(pending.body.data.ageSeconds).toBeGreaterThanOrEqual(1);
    expect((await answer).status).toBe(200);
    expect((await item('PENDING_ABANDONED', bet.transactionId)).body.data.state).toBe('CLOSED_BY_LEDGER');
  });
});

describe('When the queue is read and acted on in each scope', () => {
  it('then a casino or studio sees only its items, finance and API tokens cannot act, and the metric counts by kind and age', async () => {
    const bet = betBody(w.a, pl, { amount: 9.99 });
    w.sandbox.setFault({ providerId: w.a.providerId, operation: 'debit' }, { kind: 'error', status: 502, applyFirst: true }, 1);
    await debit(bet);
    const path = `money/reconciliation/items/DEBIT_UNCLEAR/${w.a.providerId}/${bet.transactionId}`;
    const casinoB = await w.as('admin', { type: 'casino', providerId: w.b.providerId });
    const studioB = await w.as('support', { type: 'studio', groupId: w.b.groupId });
    const studioA = await w.as('support', { type: 'studio', groupId: w.a.groupId });
    const financeA = await w.as('finance', { type: 'casino', providerId: w.a.providerId });
    for (const other of [casinoB, studioB]) {
      expect((await other('GET', path)).status).toBe(404);
      expect((await other('POST', `${path}/acknowledge`, { note: 'not mine' })).status).toBe(404);
      const list = await other('GET', 'money/reconciliation/items?limit=500');
      expect(list.body.data.filter((i: any) => i.providerId === w.a.providerId)).toEqual([]);
    }
    const mine = await studioA('GET', `money/reconciliation/items?kind=DEBIT_UNCLEAR&limit=500`);
    expect(mine.body.data.every((i: any) => i.groupId === w.a.groupId)).toBe(true);
    expect(mine.body.data.map((i: any) => i.recordId)).toContain(bet.transactionId);
    expect(mine.body.meta.counts.find((c: any) => c.kind === 'DEBIT_UNCLEAR' && c.age === 'lt_1h').count).toBeGreaterThanOrEqual(1);
    expect((await financeA('POST', `${path}/acknowledge`, { note: 'finance' })).body.error).toBe('PERMISSION_DENIED');

    const metric = async () => {
      const text = (await http('GET', `${w.p.services.backoffice!.url}/metrics`)).text;
      const line = text.split('\n').find((l) => l.startsWith('relay_reconciliation_items{') && l.includes('kind="DEBIT_UNCLEAR"') && l.includes('age="lt_1h"'));
      return Number(line?.split(' ')[1]);
    };
    // The gauge is platform-wide and other test files fault debits too: compare it with the
    // queue's own count (open and acknowledged items) until both are read in a quiet moment.
    const unresolved = async () => {
      const all = await admin('money/reconciliation/items?kind=DEBIT_UNCLEAR&limit=1');
      const resolved = await admin('money/reconciliation/items?kind=DEBIT_UNCLEAR&state=RESOLVED&limit=1');
      const young = (r: any) => r.body.meta.counts.find((c: any) => c.age === 'lt_1h')?.count ?? 0;
      return young(all) - young(resolved);
    };
    const agrees = async () => {
      const [m, q] = [await metric(), await unresolved()];
      return m === q && m === (await metric());
    };
    await eventually(agrees, 10000, 'the gauge to agree with the queue');
    expect(await metric()).toBeGreaterThanOrEqual(1);
    const token = await http('POST', bo(w.p, `casinos/${w.a.providerId}/api-tokens`), { token: w.p.adminToken, body: { name: 'recon job' } });
    const byToken = await http('POST', bo(w.p, `${path}/acknowledge`), { token: token.body.data.token, body: { note: 'a job' } });
    expect([byToken.status, byToken.body.error]).toEqual([403, 'PERMISSION_DENIED']);
    expect((await http('GET', bo(w.p, path), { token: token.body.data.token })).body.data.state).toBe('OPEN');
    expect((await studioA('POST', `${path}/resolve`, { note: 'Casino confirmed and refunded by hand' })).body.data.state).toBe('RESOLVED');
    await eventually(agrees, 10000, 'the gauge to agree with the queue after the resolution');

    const csv = await studioA('GET', 'money/reconciliation/items.csv?kind=DEBIT_UNCLEAR');
    expect(csv.text.split('\n')[0]).toBe(`# scope: studio ${w.a.groupId}; filters: kind=DEBIT_UNCLEAR`);
    expect(csv.text).toContain(bet.transactionId);
  });
});

describe('When a row reaches the ledger late, dated in the past', () => {
  it('then the queue shows it at once in its age bucket, and a late success for the same bet closes it (no watermark to miss either)', async () => {
    const twoDaysAgo = new Date(Date.now() - 2 * 86400_000);
    const base = { provider_id: w.a.providerId, group_id: w.a.groupId, game_id: w.a.gameId, player_id: pl.playerId, session_id: pl.sessionId, round_id: `late-${randomUUID()}`, currency: 'EUR', language: 'en', request_fingerprint: 'x', category: 'CASH_IN', previous_transaction_id: `late-bet-${randomUUID()}` };
    const failedId = `late-credit-${randomUUID()}`;
    const failedPk = randomUUID();
    await w.p.db.primary('transactions').insert({ ...base, id: failedPk, transaction_id: failedId, status: 'FAILED', error_code: 'INTEGRATION_TIMED_OUT', amount: '42.00', created_at: twoDaysAgo, claimed_at: twoDaysAgo });
    // Its idempotency key, as the wallet's claim writes it with every record (libs/ledger/src/schema/keys.ts).
    await w.p.db.primary('transaction_keys').insert({ provider_id: w.a.providerId, transaction_id: failedId, id: failedPk, created_at: twoDaysAgo });
    const owed = await item('CREDIT_OWED', failedId);
    expect(owed.body.data).toMatchObject({ state: 'OPEN', amount: 42 });
    expect(owed.body.data.ageSeconds).toBeGreaterThan(47 * 3600);
    const old = await admin(`money/reconciliation/items?providerId=${w.a.providerId}&kind=CREDIT_OWED`);
    expect(old.body.meta.counts).toEqual(expect.arrayContaining([{ kind: 'CREDIT_OWED', age: 'gt_24h', count: 1 }]));
    // The game's retry under a new transactionId for the same bet, written even later but dated before the failure.
    await w.p.db.primary('transactions').insert({ ...base, id: randomUUID(), transaction_id: `late-retry-${randomUUID()}`, status: 'SUCCESS', amount: '42.00', created_at: new Date(twoDaysAgo.getTime() - 1000) });
    expect((await item('CREDIT_OWED', failedId)).body.data.state).toBe('CLOSED_BY_LEDGER');
  });
});
