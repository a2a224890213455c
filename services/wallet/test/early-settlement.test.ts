import { randomBytes } from 'node:crypto';
import { createKnex, type Knex } from '@relay/shared';
import { debitSuccessStatement, recordCreditSuccess, recordDebitSuccess, settleStatement, type OpenRound, type Settlement } from '../src/data/rounds';
import { claimTransaction, type Claim, type MovementRecord, type SuccessFacts } from '../src/data/transactions';
import { movementRecord } from './movement-records';

/**
 * A credit that settles a bet and the bet's own outcome, committed at the same moment from two
 * connections, in both orders of their row locks (PostgreSQL, READ COMMITTED): the round must end
 * SETTLED by the credit either way. The interleavings are forced by holding one statement's
 * transaction open while the other runs.
 */
const id = randomBytes(4).toString('hex');
const PROVIDER = `early-cas-${id}`;
const GROUP = `early-grp-${id}`;
const PLAYER = `early-p-${id}`;
let db: Knex;

beforeAll(() => {
  db = createKnex(process.env.DATABASE_URL!, 4, 'early-settlement-test');
});
afterAll(async () => {
  await db.destroy();
});

const movement = (category: 'CASH_OUT' | 'CASH_IN', transactionId: string, roundId: string, over: Partial<MovementRecord> = {}) =>
  movementRecord({ providerId: PROVIDER, groupId: GROUP, gameId: 77, playerId: PLAYER }, category, transactionId, roundId, over);

const facts = (claim: Claim, balance: string): SuccessFacts => ({ claim, balance, username: PLAYER, casinoStatus: 200, casinoBody: '{}' });

async function bettingRound(tag: string, creditOver: Partial<MovementRecord> = {}) {
  const roundId = `r-${tag}-${id}`;
  const bet = movement('CASH_OUT', `b-${tag}-${id}`, roundId);
  const win = movement('CASH_IN', `w-${tag}-${id}`, roundId, { previousTransactionId: bet.transactionId, amount: '20.00', ...creditOver });
  const betClaim = (await claimTransaction(db, bet, { amount: 10 }))!;
  const winClaim = (await claimTransaction(db, win, { amount: 20, game: { outcome: 'WIN', settlementData: { x: 1 } } }))!;
  const round: OpenRound = { providerId: PROVIDER, roundId, groupId: GROUP, gameId: 77, playerId: PLAYER, sessionId: 's', currency: 'EUR', language: 'en', betAmount: '10.00', betTransactionId: bet.transactionId, gameData: null };
  const settlement: Settlement = {
    providerId: PROVIDER,
    roundId: win.roundId,
    groupId: win.groupId,
    gameId: win.gameId,
    playerId: PLAYER,
    previousTransactionId: bet.transactionId,
    payoutAmount: '20.00',
    appliedMultiplier: '2',
    settleTransactionId: win.transactionId,
    settleReason: 'NORMAL_WIN',
    outcome: 'WIN',
    settlementData: { x: 1 },
  };
  return { roundId, win, betSuccess: facts(betClaim, '90.00'), winSuccess: facts(winClaim, '110.00'), round, settlement };
}

const roundOf = (roundId: string) => db('rounds').where({ provider_id: PROVIDER, round_id: roundId }).first('status', 'settle_transaction_id', 'payout_amount', 'outcome', 'settlement_data');

/** Sessions of this database waiting on a lock (a row lock shows as waiting on a transaction). */
async function lockWaiters(): Promise<number> {
  const result = await db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
  return result.rows[0].n as number;
}

/**
 * Runs `first` inside a transaction left open until `second` is seen waiting on its row lock, then
 * commits: the interleaving is checked, not assumed from a sleep.
 */
async function interleave<T>(first: (trx: Knex.Transaction) => Promise<unknown>, second: () => Promise<T>): Promise<T> {
  const trx = await db.transaction();
  await first(trx);
  const pending = second();
  const until = Date.now() + 10_000;
  while ((await lockWaiters()) === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  const waiting = await lockWaiters();
  await trx.commit();
  expect(waiting).toBeGreaterThan(0);
  return pending;
}

test('When the credit commits while the bet\'s outcome waits on its row, then the round opens SETTLED by that credit', async () => {
  const r = await bettingRound('a');
  const s = settleStatement(r.winSuccess, r.settlement);
  const opened = await interleave((trx) => trx.raw(s.sql, s.bindings), () => recordDebitSuccess(db, r.betSuccess, r.round));
  expect(opened).toBe('OPENED_SETTLED');
  expect(await roundOf(r.roundId)).toEqual({ status: 'SETTLED', settle_transaction_id: r.win.transactionId, payout_amount: '20.00', outcome: 'WIN', settlement_data: { x: 1 } });
});

test('When the bet\'s outcome commits while the credit waits on the bet\'s row, then the credit looks again and settles the round', async () => {
  const r = await bettingRound('b');
  const d = debitSuccessStatement(r.betSuccess, r.round);
  const settled = await interleave((trx) => trx.raw(d.sql, d.bindings), () => recordCreditSuccess(db, r.winSuccess, r.settlement));
  expect(settled).toBe('SETTLED');
  expect(await roundOf(r.roundId)).toMatchObject({ status: 'SETTLED', settle_transaction_id: r.win.transactionId });
});

test('When a credit of another game provider or another round names the bet, then it does not settle the bet\'s round', async () => {
  const other = await bettingRound('c', { groupId: `other-${GROUP}`, gameId: 78 });
  expect(await recordCreditSuccess(db, other.winSuccess, { ...other.settlement, groupId: `other-${GROUP}`, gameId: 78 })).toBe('NO_ROUND');
  expect(await recordDebitSuccess(db, other.betSuccess, other.round)).toBe('OPENED');
  const elsewhere = await bettingRound('d', { roundId: `elsewhere-${id}` });
  expect(await recordCreditSuccess(db, elsewhere.winSuccess, { ...elsewhere.settlement, roundId: `elsewhere-${id}` })).toBe('NO_ROUND');
  expect(await recordDebitSuccess(db, elsewhere.betSuccess, elsewhere.round)).toBe('OPENED');
  expect(await roundOf(elsewhere.roundId)).toMatchObject({ status: 'OPEN', settle_transaction_id: null });
});
