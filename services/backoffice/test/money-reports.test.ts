import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { parse as parseCsv } from 'csv-parse/sync';
import { uniqueId } from '../../../test/platform';
import type { Player } from '../../../test/game';
import { ADMIN, playRound, startMoneyWorld, type MoneyWorld } from './money-support';

/**
 * Reports against the ledger: random data written straight into the money tables, checked
 * to the cent against sums computed independently (decimal.js over what was written, and plain
 * SQL), and a played world checked against the sandbox casino's own journal. Then the flagged
 * wins and their thresholds.
 */
let w: MoneyWorld;
let pa: Player;
let pb: Player;

beforeAll(async () => {
  w = await startMoneyWorld();
  pa = await w.a.launchPlayer({ balance: 1_000_000 });
  pb = await w.b.launchPlayer({ balance: 1_000_000 });
  await playRound(w.a, pa, 10.1, 25.25);
  await playRound(w.a, pa, 3.33, 0);
  await playRound(w.b, pb, 7, 14);
}, 90000);
afterAll(async () => {
  await w?.stop();
});

interface Expected { bets: number; betSum: Decimal; payoutSum: Decimal; players: Set<string>; settled: number; open: number }

/** A random ledger for one fresh studio across two casinos, two games, two currencies and three days. */
async function randomLedger(groupId: string, casinos: string[]) {
  const days = ['2026-03-01', '2026-03-02', '2026-03-03'];
  const expected = new Map<string, Expected>();
  const tx: Record<string, unknown>[] = [];
  const rounds: Record<string, unknown>[] = [];
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const cents = (max: number) => new Decimal(Math.floor(Math.random() * max * 100)).div(100);
  for (let i = 0; i < 300; i++) {
    const [day, providerId, gameId, currency, playerId] = [pick(days), pick(casinos), pick([11, 12]), pick(['EUR', 'USD']), `pl${Math.floor(Math.random() * 20)}`];
    const at = `${day}T${String(Math.floor(Math.random() * 24)).padStart(2, '0')}:${String(Math.floor(Math.random() * 60)).padStart(2, '0')}:00.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}Z`;
    const roundId = `r${i}`;
    const bet = cents(500);
    const status = Math.random() < 0.1 ? 'FAILED' : 'SUCCESS';
    const base = { provider_id: providerId, group_id: groupId, game_id: gameId, player_id: playerId, session_id: 's', round_id: roundId, currency, language: 'en', request_fingerprint: 'x', created_at: at, claimed_at: at };
    tx.push({ ...base, id: randomUUID(), transaction_id: `b${i}`, category: 'CASH_OUT', status, amount: bet.toFixed(2) });
    const key = [day, providerId, gameId, currency].join('|');
    const e = expected.get(key) ?? { bets: 0, betSum: new Decimal(0), payoutSum: new Decimal(0), players: new Set<string>(), settled: 0, open: 0 };
    expected.set(key, e);
    if (status === 'FAILED') continue;
    e.bets += 1;
    e.betSum = e.betSum.plus(bet);
    e.players.add(playerId);
    const settles = Math.random() < 0.75;
    if (settles) {
      const payout = Math.random() < 0.5 ? new Decimal(0) : cents(1500);
      const creditOk = Math.random() < 0.9;
      tx.push({ ...base, id: randomUUID(), transaction_id: `w${i}`, category: 'CASH_IN', status: creditOk ? 'SUCCESS' : 'FAILED', amount: payout.toFixed(2), previous_transaction_id: `b${i}`, reason: 'NORMAL_WIN' });
      if (creditOk) e.payoutSum = e.payoutSum.plus(payout);
      const settled = creditOk;
      rounds.push({ id: randomUUID(), provider_id: providerId, round_id: roundId, group_id: groupId, game_id: gameId, player_id: playerId, session_id: 's', currency, language: 'en', status: settled ? 'SETTLED' : 'OPEN', bet_amount: bet.toFixed(2), bet_transaction_id: `b${i}`, opened_at: at, created_at: at });
      if (settled) e.settled += 1;
      else e.open += 1;
    } else {
      rounds.push({ id: randomUUID(), provider_id: providerId, round_id: roundId, group_id: groupId, game_id: gameId, player_id: playerId, session_id: 's', currency, language: 'en', status: 'OPEN', bet_amount: bet.toFixed(2), bet_transaction_id: `b${i}`, opened_at: at, created_at: at });
      e.open += 1;
    }
  }
  await w.p.db.primary.batchInsert('transactions', tx, 200);
  await w.p.db.primary.batchInsert('rounds', rounds, 200);
  return expected;
}

describe('When a report is asked over random ledger data', () => {
  it('then every group and the totals agree to the cent with the rows written and with SQL sums', async () => {
    const groupId = uniqueId('grp-random');
    const casinos = [uniqueId('cas-r1'), uniqueId('cas-r2')];
    const expected = await randomLedger(groupId, casinos);
    const finance = await w.as('finance', { type: 'platform' });
    const res = await finance('GET', `money/reports?from=2026-03-01&to=2026-03-03&groupBy=day,casino,game&groupId=${groupId}&limit=500`);
    expect(res.status).toBe(200);
    expect(res.body.meta.groupBy).toEqual(['day', 'providerId', 'gameId', 'currency']);
    const got = new Map(res.body.data.map((r: any) => [[r.day, r.providerId, r.gameId, r.currency].join('|'), r]));
    expect(new Set(got.keys())).toEqual(new Set(expected.keys()));
    for (const [key, e] of expected) {
      const r: any = got.get(key);
      expect([key, r.bets, r.betSum, r.payoutSum, r.ggr, r.distinctPlayers, r.roundsSettled, r.roundsOpen]).toEqual([
        key, e.bets, e.betSum.toNumber(), e.payoutSum.toNumber(), e.betSum.minus(e.payoutSum).toNumber(), e.players.size, e.settled, e.open,
      ]);
    }
    expect(res.body.meta.totals.map((t: any) => t.currency)).toEqual(['EUR', 'USD']);
    const sql = await w.p.db.primary('transactions').where({ group_id: groupId, status: 'SUCCESS' }).select('currency', 'category').sum({ s: 'amount' }).groupBy('currency', 'category');
    for (const t of res.body.meta.totals) {
      const bets = sql.find((s: any) => s.currency === t.currency && s.category === 'CASH_OUT');
      const pays = sql.find((s: any) => s.currency === t.currency && s.category === 'CASH_IN');
      expect([t.currency, t.betSum, t.payoutSum]).toEqual([t.currency, Number(bets?.s ?? 0), Number(pays?.s ?? 0)]);
    }
    // One day only: the period bounds are whole UTC days.
    const oneDay = await finance('GET', `money/reports?from=2026-03-02&to=2026-03-02&groupBy=day&groupId=${groupId}`);
    expect(new Set(oneDay.body.data.map((r: any) => r.day))).toEqual(new Set(['2026-03-02']));

    // The CSV of the same report sums to the same cents.
    const csv = await finance('GET', `money/reports.csv?from=2026-03-01&to=2026-03-03&groupBy=casino&groupId=${groupId}`);
    expect(csv.text.split('\n')[0]).toBe(`# scope: platform; filters: from=2026-03-01, to=2026-03-03, groupBy=casino+currency, groupId=${groupId}`);
    const records = parseCsv(csv.text, { comment: '#', columns: true }) as Record<string, string>[];
    for (const t of res.body.meta.totals) {
      const sum = records.filter((r) => r.currency === t.currency).reduce((s, r) => s.plus(r.ggr), new Decimal(0));
      expect([t.currency, sum.toNumber()]).toEqual([t.currency, t.ggr]);
    }
  });
});

describe('When a played casino is reported', () => {
  it('then bets and payouts equal the sandbox casino journal, and each scope sees only its own', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const finance = await w.as('finance', { type: 'platform' });
    const res = await finance('GET', `money/reports?from=${today}&to=${today}&groupBy=casino&providerId=${w.a.providerId}`);
    const journal = w.sandbox.journal({ providerId: w.a.providerId });
    const sum = (op: string) => journal.filter((j) => j.operation === op).reduce((s, j) => s.plus(j.amount), new Decimal(0)).toNumber();
    expect(res.body.data).toEqual([{ providerId: w.a.providerId, currency: 'EUR', bets: 2, betSum: sum('debit'), payoutSum: sum('credit'), ggr: -11.82, roundsSettled: 2, roundsOpen: 0, distinctPlayers: 1 }]);

    const casinoA = await w.as('finance', { type: 'casino', providerId: w.a.providerId });
    const studioB = await w.as('admin', { type: 'studio', groupId: w.b.groupId });
    const byCasino = await casinoA('GET', `money/reports?from=${today}&to=${today}&groupBy=casino`);
    expect(byCasino.body.data.map((r: any) => r.providerId)).toEqual([w.a.providerId]);
    const byStudio = await studioB('GET', `money/reports?from=${today}&to=${today}&groupBy=studio`);
    expect(byStudio.body.data).toEqual([expect.objectContaining({ groupId: w.b.groupId, bets: 1, betSum: 7, payoutSum: 14, ggr: -7 })]);
    const support = await w.as('support', { type: 'platform' });
    expect((await support('GET', 'money/reports')).body.error).toBe('PERMISSION_DENIED');
    expect((await support('GET', 'money/reports.csv')).status).toBe(403);
    for (const bad of ['from=2026-13-01', 'groupBy=week', 'from=2026-03-05&to=2026-03-01', 'limit=100000']) {
      expect([bad, (await finance('GET', `money/reports?${bad}`)).status]).toEqual([bad, 400]);
    }
  });
});

describe('When wins cross their casino thresholds', () => {
  it('then they are flagged (payout per currency or multiplier, above and not at the threshold), reviewed once, in scope', async () => {
    const admin = await w.as('admin', { type: 'platform' });
    const put = await admin('PUT', `money/flag-thresholds/${w.a.providerId}`, { multiplierOver: 10, payoutOver: { EUR: 100 } });
    expect([put.status, put.body.data]).toEqual([200, { providerId: w.a.providerId, isDefault: false, multiplierOver: 10, payoutOver: { EUR: 100 } }]);
    const big = await playRound(w.a, pa, 100, 150, 1.5); // payout above 100 EUR
    const high = await playRound(w.a, pa, 5, 55, 11); // multiplier above 10
    const edge = await playRound(w.a, pa, 10, 100, 10); // exactly at both: not above
    const underDefault = await playRound(w.b, pb, 5000, 9999, 1.9998); // casino B: defaults (10000, 500x)
    const overDefault = await playRound(w.b, pb, 5000, 10000.01, 2.000002);

    const list = await ADMIN(w, 'money/flagged-wins?limit=500');
    const flagged = new Map(list.body.data.map((f: any) => [f.transactionId, f]));
    expect((flagged.get(big.winId) as any).flaggedFor).toEqual(['PAYOUT']);
    expect((flagged.get(high.winId) as any).flaggedFor).toEqual(['MULTIPLIER']);
    expect((flagged.get(overDefault.winId) as any)).toMatchObject({ flaggedFor: ['PAYOUT'], payoutOver: 10000, multiplierOver: 500, state: 'FLAGGED' });
    for (const id of [edge.winId, underDefault.winId]) expect(flagged.has(id)).toBe(false);
    expect((await admin('GET', `money/flag-thresholds/${w.b.providerId}`)).body.data).toMatchObject({ isDefault: true, multiplierOver: 500 });

    const casinoB = await w.as('finance', { type: 'casino', providerId: w.b.providerId });
    const seenByB = await casinoB('GET', 'money/flagged-wins?limit=500');
    expect(seenByB.body.data.map((f: any) => f.transactionId)).toEqual([overDefault.winId]);
    const path = `money/flagged-wins/${w.a.providerId}/${big.winId}/review`;
    expect((await casinoB('POST', path, { note: 'not mine' })).status).toBe(404);
    const supportA = await w.as('support', { type: 'casino', providerId: w.a.providerId });
    expect((await supportA('POST', path, { note: 'support' })).body.error).toBe('PERMISSION_DENIED');
    const financeA = await w.as('finance', { type: 'casino', providerId: w.a.providerId });
    const reviewed = await financeA('POST', path, { note: 'Player verified, legitimate win' });
    expect([reviewed.status, reviewed.body.data.state, reviewed.body.data.reviewNote]).toEqual([200, 'REVIEWED', 'Player verified, legitimate win']);
    expect((await financeA('POST', path, { note: 'again' })).body.error).toBe('STATE_CONFLICT');
    const stillFlagged = await financeA('GET', 'money/flagged-wins?state=FLAGGED');
    expect(stillFlagged.body.data.map((f: any) => f.transactionId)).toEqual([high.winId]);
    const audit = await ADMIN(w, 'audit?action=flagged-win.review');
    expect(audit.body.data.map((a: any) => a.target)).toContain(`flagged-win/${w.a.providerId}/${big.winId}`);

    // Only platform admins set thresholds; bad input is a 400.
    expect((await financeA('PUT', `money/flag-thresholds/${w.a.providerId}`, { multiplierOver: 1, payoutOver: { EUR: 1 } })).body.error).toBe('PERMISSION_DENIED');
    expect((await admin('PUT', `money/flag-thresholds/${w.a.providerId}`, { multiplierOver: 1, payoutOver: { EUR: 1.001 } })).status).toBe(400);
    expect((await admin('PUT', 'money/flag-thresholds/no-such-casino', { multiplierOver: 1, payoutOver: { EUR: 1 } })).status).toBe(404);
  });
});
