import { randomBytes } from 'node:crypto';
import { startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { createKnex, type Knex } from '@relay/shared';
import { startFloor, type Floor, type FloorFramework } from './floor';

/**
 * The money bench's floor is only a floor if the stand-ins do the wallet's work: the same records,
 * the same casino calls. One pair through them, against real PostgreSQL and the sandbox casino,
 * for the bare stand-ins and for the same stand-ins on express and http-proxy-middleware.
 */
const id = randomBytes(4).toString('hex');
const world = { providerId: `floor-cas-${id}`, groupId: `floor-grp-${id}`, gameId: 424_200 + Math.floor(Math.random() * 1000), walletSecret: randomBytes(16).toString('hex'), providerToken: randomBytes(16).toString('hex') };
const FRAMEWORKS: FloorFramework[] = ['bare', 'express'];

let sandbox: CasinoSandbox;
let db: Knex;

beforeAll(async () => {
  sandbox = await startCasinoSandbox();
  sandbox.setSecret(world.providerId, world.walletSecret);
  db = createKnex(process.env.DATABASE_URL!, 2, 'floor-test');
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  await db?.destroy();
});

describe.each(FRAMEWORKS)('%s stand-ins', (framework) => {
  const tag = `${id}-${framework}`;
  const player = { playerId: `floor-p-${tag}`, walletToken: randomBytes(8).toString('hex'), sessionId: `floor-s-${tag}` };
  let floor: Floor;

  beforeAll(async () => {
    sandbox.addPlayer({ providerId: world.providerId, playerId: player.playerId, walletToken: player.walletToken, balance: 100 });
    floor = await startFloor(process.env.DATABASE_URL!, sandbox.url, world, [player], undefined, framework);
  }, 60_000);

  afterAll(async () => {
    await floor?.stop();
  });

  async function post(path: string, body: object, token = world.providerToken) {
    const res = await fetch(`${floor.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.text() };
  }

  test('When a cash-out and a cash-in go through the stand-ins, then the records and the casino show what the wallet would write', async () => {
    const common = { sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: `r-${tag}` };
    const out = await post('/api/balance/cash-out', { ...common, transactionId: `b-${tag}`, amount: 10 });
    expect(out.status).toBe(200);
    expect(JSON.parse(out.body)).toMatchObject({ id: player.playerId, balance: 90 });
    const inn = await post('/api/balance/cash-in', { ...common, transactionId: `w-${tag}`, amount: 25, reason: 'NORMAL_WIN', appliedMultiplier: 2.5, previousTransactionId: `b-${tag}`, betAmount: 10 });
    expect(inn.status).toBe(200);
    expect(JSON.parse(inn.body)).toMatchObject({ balance: 115 });

    const transactions = await db('transactions').where({ provider_id: world.providerId, player_id: player.playerId }).orderBy('category', 'desc').select('transaction_id', 'category', 'status', 'amount', 'balance', 'group_id');
    expect(transactions).toEqual([
      { transaction_id: `b-${tag}`, category: 'CASH_OUT', status: 'SUCCESS', amount: '10.00', balance: '90.00', group_id: world.groupId },
      { transaction_id: `w-${tag}`, category: 'CASH_IN', status: 'SUCCESS', amount: '25.00', balance: '115.00', group_id: world.groupId },
    ]);
    const attempts = await db('transaction_attempts as a').join('transactions as t', 't.id', 'a.transaction_pk').where({ 't.provider_id': world.providerId, 't.player_id': player.playerId }).select('a.outcome', 'a.casino_status');
    expect(attempts).toEqual([
      { outcome: 'SUCCESS', casino_status: 200 },
      { outcome: 'SUCCESS', casino_status: 200 },
    ]);
    const round = await db('rounds').where({ provider_id: world.providerId, round_id: `r-${tag}` }).first('status', 'bet_amount', 'payout_amount', 'settle_transaction_id');
    expect(round).toEqual({ status: 'SETTLED', bet_amount: '10.00', payout_amount: '25.00', settle_transaction_id: `w-${tag}` });
    expect(sandbox.ledger({ providerId: world.providerId, playerId: player.playerId })[0].balance).toBe(115);
    expect(sandbox.journal({ providerId: world.providerId, playerId: player.playerId }).map((e) => e.operation)).toEqual(['debit', 'credit']);
  });

  test('When the bearer token is not the game provider\'s, then the stand-in gateway refuses it and nothing is written', async () => {
    const res = await post('/api/balance/cash-out', { sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: `r2-${tag}`, transactionId: `b2-${tag}`, amount: 1 }, 'not-the-token');
    expect(res.status).toBe(401);
    expect(await db('transactions').where({ provider_id: world.providerId, transaction_id: `b2-${tag}` }).first()).toBeUndefined();
  });

  test('When the stand-in gateway is given the rate limit, then it counts every call in Redis as the gateway does: a burst over the budget is refused with 429 and writes nothing', async () => {
    const limited = await startFloor(process.env.DATABASE_URL!, sandbox.url, world, [player], {
      redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
      keyPrefix: `floor-test-${tag}`,
      perSecond: 1,
    }, framework);
    try {
      const burst = Array.from({ length: 20 }, (_, i) => fetch(`${limited.url}/api/balance/cash-out`, {
        method: 'POST',
        headers: { authorization: `Bearer ${world.providerToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: `rl-${tag}-${i}`, transactionId: `rl-${tag}-${i}`, amount: 1 }),
      }).then((res) => res.status));
      const statuses = await Promise.all(burst);
      const refused = statuses.filter((s) => s === 429).length;
      // 20 calls at once against 1 per second: only a burst spread over 20 seconds could pass whole.
      expect(refused).toBeGreaterThan(0);
      expect(statuses.filter((s) => s !== 429).every((s) => s === 200)).toBe(true);
      const written = await db('transactions').where({ provider_id: world.providerId }).whereLike('transaction_id', `rl-${tag}-%`).count<{ count: string }[]>('* as count');
      expect(Number(written[0].count)).toBe(20 - refused);
    } finally {
      await limited.stop();
    }
  });
});
