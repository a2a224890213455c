import { randomBytes } from 'node:crypto';
import { startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { createKnex, type Knex } from '@relay/shared';
import { startFloor, type Floor } from './floor';

/**
 * The money bench's floor is only a floor if the stand-ins do the wallet's work: the same records,
 * the same casino calls. One pair through them, against real PostgreSQL and the sandbox casino.
 */
const id = randomBytes(4).toString('hex');
const world = { providerId: `floor-cas-${id}`, groupId: `floor-grp-${id}`, gameId: 424_200 + Math.floor(Math.random() * 1000), walletSecret: randomBytes(16).toString('hex'), providerToken: randomBytes(16).toString('hex') };
const player = { playerId: `floor-p-${id}`, walletToken: randomBytes(8).toString('hex'), sessionId: `floor-s-${id}` };

let sandbox: CasinoSandbox;
let floor: Floor;
let db: Knex;

beforeAll(async () => {
  sandbox = await startCasinoSandbox();
  sandbox.setSecret(world.providerId, world.walletSecret);
  sandbox.addPlayer({ providerId: world.providerId, playerId: player.playerId, walletToken: player.walletToken, balance: 100 });
  db = createKnex(process.env.DATABASE_URL!, 2, 'floor-test');
  floor = await startFloor(process.env.DATABASE_URL!, sandbox.url, world, [player]);
}, 60_000);

afterAll(async () => {
  await floor?.stop();
  await sandbox?.close();
  await db?.destroy();
});

async function post(path: string, body: object, token = world.providerToken) {
  const res = await fetch(`${floor.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.text() };
}

test('When a cash-out and a cash-in go through the bare stand-ins, then the records and the casino show what the wallet would write', async () => {
  const common = { sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: `r-${id}` };
  const out = await post('/api/balance/cash-out', { ...common, transactionId: `b-${id}`, amount: 10 });
  expect(out.status).toBe(200);
  expect(JSON.parse(out.body)).toMatchObject({ id: player.playerId, balance: 90 });
  const inn = await post('/api/balance/cash-in', { ...common, transactionId: `w-${id}`, amount: 25, reason: 'NORMAL_WIN', appliedMultiplier: 2.5, previousTransactionId: `b-${id}`, betAmount: 10 });
  expect(inn.status).toBe(200);
  expect(JSON.parse(inn.body)).toMatchObject({ balance: 115 });

  const transactions = await db('transactions').where({ provider_id: world.providerId }).orderBy('category', 'desc').select('transaction_id', 'category', 'status', 'amount', 'balance', 'group_id');
  expect(transactions).toEqual([
    { transaction_id: `b-${id}`, category: 'CASH_OUT', status: 'SUCCESS', amount: '10.00', balance: '90.00', group_id: world.groupId },
    { transaction_id: `w-${id}`, category: 'CASH_IN', status: 'SUCCESS', amount: '25.00', balance: '115.00', group_id: world.groupId },
  ]);
  const attempts = await db('transaction_attempts as a').join('transactions as t', 't.id', 'a.transaction_pk').where('t.provider_id', world.providerId).select('a.outcome', 'a.casino_status');
  expect(attempts).toEqual([
    { outcome: 'SUCCESS', casino_status: 200 },
    { outcome: 'SUCCESS', casino_status: 200 },
  ]);
  const round = await db('rounds').where({ provider_id: world.providerId, round_id: `r-${id}` }).first('status', 'bet_amount', 'payout_amount', 'settle_transaction_id');
  expect(round).toEqual({ status: 'SETTLED', bet_amount: '10.00', payout_amount: '25.00', settle_transaction_id: `w-${id}` });
  expect(sandbox.ledger({ providerId: world.providerId, playerId: player.playerId })[0].balance).toBe(115);
  expect(sandbox.journal({ providerId: world.providerId }).map((e) => e.operation)).toEqual(['debit', 'credit']);
});

test('When the bearer token is not the game provider\'s, then the stand-in gateway refuses it and nothing is written', async () => {
  const res = await post('/api/balance/cash-out', { sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: `r2-${id}`, transactionId: `b2-${id}`, amount: 1 }, 'not-the-token');
  expect(res.status).toBe(401);
  expect(await db('transactions').where({ provider_id: world.providerId, transaction_id: `b2-${id}` }).first()).toBeUndefined();
});

test('When the stand-in gateway is given the rate limit, then it counts every call in Redis as the gateway does: a burst over the budget is refused with 429 and writes nothing', async () => {
  const limited = await startFloor(process.env.DATABASE_URL!, sandbox.url, world, [player], {
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    keyPrefix: `floor-test-${id}`,
    perSecond: 1,
  });
  try {
    const burst = Array.from({ length: 20 }, (_, i) => fetch(`${limited.url}/api/balance/cash-out`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.providerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: `rl-${id}-${i}`, transactionId: `rl-${id}-${i}`, amount: 1 }),
    }).then((res) => res.status));
    const statuses = await Promise.all(burst);
    const refused = statuses.filter((s) => s === 429).length;
    // 20 calls at once against 1 per second: only a burst spread over 20 seconds could pass whole.
    expect(refused).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 429).every((s) => s === 200)).toBe(true);
    const written = await db('transactions').where({ provider_id: world.providerId }).whereLike('transaction_id', `rl-${id}-%`).count<{ count: string }[]>('* as count');
    expect(Number(written[0].count)).toBe(20 - refused);
  } finally {
    await limited.stop();
  }
});
