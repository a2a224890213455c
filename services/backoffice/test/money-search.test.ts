import { ADMIN, playRound, startMoneyWorld, type MoneyWorld } from './money-support';

/**
 * Search and the round's story through the gateway, in each scope: a casino account sees only
 * its casino, a studio account only its studio, and a record of another tenant is a plain 404.
 */
let w: MoneyWorld;
const played: { a: { roundId: string; betId: string; winId: string }[]; b: { roundId: string; betId: string; winId: string }[] } = { a: [], b: [] };

beforeAll(async () => {
  w = await startMoneyWorld();
  const pa = await w.a.launchPlayer({ balance: 1000 });
  const pb = await w.b.launchPlayer({ balance: 1000 });
  for (let i = 0; i < 5; i++) played.a.push(await playRound(w.a, pa, 10 + i, i % 2 ? 0 : 20.55));
  for (let i = 0; i < 3; i++) played.b.push(await playRound(w.b, pb, 7.25, 0));
}, 90000);
afterAll(async () => {
  await w?.stop();
});

describe('When each scope searches transactions', () => {
  it('then the platform sees both tenants, a casino and a studio account only their own', async () => {
    const platform = await w.as('support', { type: 'platform' });
    const casinoA = await w.as('support', { type: 'casino', providerId: w.a.providerId });
    const studioA = await w.as('finance', { type: 'studio', groupId: w.a.groupId });
    const both = `money/transactions?limit=500&groupId=${w.a.groupId}`;
    expect((await platform('GET', both)).body.data).toHaveLength(10);
    const allPlatform = await platform('GET', 'money/transactions?limit=500');
    const providers = new Set(allPlatform.body.data.map((t: any) => t.providerId));
    expect(providers.has(w.a.providerId) && providers.has(w.b.providerId)).toBe(true);
    for (const scoped of [casinoA, studioA]) {
      const res = await scoped('GET', 'money/transactions?limit=500');
      expect(res.status).toBe(200);
      expect(new Set(res.body.data.map((t: any) => t.providerId))).toEqual(new Set([w.a.providerId]));
      expect(res.body.data).toHaveLength(10);
      // Asking for the other tenant by name finds nothing rather than an error that confirms it exists.
      const other = await scoped('GET', `money/transactions?providerId=${w.b.providerId}`);
      expect([other.status, other.body.data, other.body.meta.totals.count]).toEqual([200, [], 0]);
    }
  });

  it('then the totals are exact over every match, not only the page, and the cursor walks every row once', async () => {
    const platform = await w.as('finance', { type: 'platform' });
    const walk = async (order: 'asc' | 'desc') => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: any = await platform('GET', `money/transactions?providerId=${w.a.providerId}&limit=3&sortOrder=${order}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.body.meta.totals.count).toBe(10);
        seen.push(...res.body.data.map((t: any) => t.transactionId));
        cursor = res.body.meta.nextCursor;
        pages += 1;
      } while (cursor);
      return { seen, pages };
    };
    const newest = await walk('desc');
    const oldest = await walk('asc');
    expect([newest.pages, new Set(newest.seen).size]).toEqual([4, 10]);
    expect(oldest.seen).toEqual([...newest.seen].reverse());
    expect(oldest.seen[0]).toBe(played.a[0].betId);
    const sums = await w.p.db.primary('transactions').where({ provider_id: w.a.providerId }).select('category').sum({ s: 'amount' }).groupBy('category');
    const bets = await platform('GET', `money/transactions?providerId=${w.a.providerId}&category=CASH_OUT`);
    expect(bets.body.meta.totals.byCurrency).toEqual([{ currency: 'EUR', count: 5, amount: Number(sums.find((s: any) => s.category === 'CASH_OUT')!.s) }]);
    expect(bets.body.meta.totals.byCurrency[0].amount).toBe(60);
  });

  it('then every filter narrows: amount range, reason, status, time', async () => {
    const platform = await w.as('support', { type: 'platform' });
    const q = (s: string) => platform('GET', `money/transactions?providerId=${w.a.providerId}&${s}`).then((r) => r.body.data.length);
    expect(await q('amountMin=11&amountMax=13')).toBe(3); // bets 11, 12, 13
    expect(await q('reason=BET_LOST')).toBe(2);
    expect(await q('category=CASH_IN&reason=NORMAL_WIN&amountMin=20.55&amountMax=20.55')).toBe(3);
    expect(await q('status=FAILED')).toBe(0);
    expect(await q(`to=${new Date(Date.now() - 3600_000).toISOString()}`)).toBe(0);
    const rounds = await platform('GET', `money/rounds?groupId=${w.b.groupId}&status=SETTLED`);
    expect([rounds.body.data.length, rounds.body.meta.totals.byCurrency]).toEqual([3, [{ currency: 'EUR', count: 3, betAmount: 21.75, payoutAmount: 0 }]]);
  });

  it('then bad input is a 400 naming the parameter, never a 500', async () => {
    const platform = await w.as('support', { type: 'platform' });
    for (const bad of ['amountMin=1.234', 'amountMin=-1', 'status=LOST', 'cursor=notacursor', 'limit=0', 'from=yesterday', 'gameId=abc', 'wat=1']) {
      const res = await platform('GET', `money/transactions?${bad}`);
      expect([bad, res.status]).toEqual([bad, 400]);
    }
  });
});

describe('When a round story is read', () => {
  it('then it holds the round, each transaction with every attempt, the session without its wallet token, and the casino body without secrets', async () => {
    const { roundId, betId, winId } = played.a[0];
    const res = await ADMIN(w, `money/rounds/${w.a.providerId}/${roundId}/story`);
    expect(res.status).toBe(200);
    const s = res.body.data;
    expect(s.round).toMatchObject({ roundId, status: 'SETTLED', betAmount: 10, payoutAmount: 20.55 });
    expect(s.transactions.map((t: any) => t.transactionId)).toEqual([betId, winId]);
    const attempt = s.transactions[0].attemptLog[0];
    expect(attempt).toMatchObject({ attempt: 1, outcome: 'SUCCESS', casinoStatus: 200, errorCodeToGame: null });
    expect(attempt.fromGame).toMatchObject({ transactionId: betId, amount: 10 });
    expect(attempt.sentToCasino).toMatchObject({ walletToken: '[REDACTED]', transactionId: betId, amount: 10, providerId: w.a.providerId });
    expect(typeof attempt.durationMs).toBe('number');
    expect(s.session).toMatchObject({ providerId: w.a.providerId, currency: 'EUR' });
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/wallet-token-/);
    expect(text).not.toMatch(/wallet_token/);
    const detail = await ADMIN(w, `money/transactions/${w.a.providerId}/${winId}`);
    expect([detail.status, detail.body.data.transaction.attemptLog.length, detail.body.data.round.roundId]).toEqual([200, 1, roundId]);
  });

  it("then it lists each round-ended call and the casino's answer, a failed try and its repeat", async () => {
    const { roundId } = played.a[1];
    const before = await ADMIN(w, `money/rounds/${w.a.providerId}/${roundId}/story`);
    expect(before.body.data.roundEndedNotifications).toEqual([]);
    w.sandbox.setFault({ providerId: w.a.providerId, operation: 'round-ended' }, { kind: 'error', status: 503 }, 1);
    expect((await w.a.call('POST', '/api/round-ended', { roundId, providerIds: [w.a.providerId] })).status).toBe(502);
    expect((await w.a.call('POST', '/api/round-ended', { roundId, providerIds: [w.a.providerId] })).status).toBe(200);
    const res = await ADMIN(w, `money/rounds/${w.a.providerId}/${roundId}/story`);
    const notes = res.body.data.roundEndedNotifications;
    expect(notes.map((n: { outcome: string }) => n.outcome)).toEqual(['PROVIDER_API_FAILURE', 'ok']);
    expect(notes[0]).toMatchObject({ providerId: w.a.providerId, errorMessage: expect.stringContaining('503') });
    expect(Date.parse(notes[1].notifiedAt)).toBeGreaterThanOrEqual(Date.parse(notes[0].notifiedAt));
  });

  it('then another tenant gets the same 404 as for a record that does not exist', async () => {
    const { roundId, betId } = played.a[0];
    const casinoB = await w.as('support', { type: 'casino', providerId: w.b.providerId });
    const studioB = await w.as('support', { type: 'studio', groupId: w.b.groupId });
    for (const other of [casinoB, studioB]) {
      const story = await other('GET', `money/rounds/${w.a.providerId}/${roundId}/story`);
      const missing = await other('GET', `money/rounds/${w.a.providerId}/no-such-round/story`);
      expect([story.status, story.body]).toEqual([404, missing.body]);
      expect((await other('GET', `money/transactions/${w.a.providerId}/${betId}`)).status).toBe(404);
    }
    const casinoA = await w.as('support', { type: 'casino', providerId: w.a.providerId });
    expect((await casinoA('GET', `money/rounds/${w.a.providerId}/${roundId}/story`)).status).toBe(200);
  });
});

describe('When transactions are exported as CSV', () => {
  it('then the file names scope and filters, and holds exactly the rows the search finds', async () => {
    const casinoA = await w.as('finance', { type: 'casino', providerId: w.a.providerId });
    const res = await casinoA('GET', 'money/transactions.csv?category=CASH_OUT');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/csv/);
    const lines = res.text.trim().split('\n');
    expect(lines[0]).toBe(`# scope: casino ${w.a.providerId}; filters: category=CASH_OUT`);
    expect(lines[1].split(',')[0]).toBe('providerId');
    expect(lines.slice(2).map((l) => l.split(',')[1]).sort()).toEqual(played.a.map((r) => r.betId).sort());
  });
});
