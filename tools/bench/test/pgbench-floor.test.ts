import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { numberedPlaceholders } from '@relay/shared';
import { startGameWorld, type GameWorld } from '../../../test/game';
import { startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';
import { pairBodies } from '../src/money-bench';
import { moneyPairStatements, pgbenchScript } from '../src/pgbench-floor';

/**
 * The money bench's pgbench floor is PostgreSQL doing what one of the bench's pairs makes the
 * platform do, nothing more and nothing less: every statement the gateway and the wallet send
 * while a real pair goes through the gateway is recorded here (each pg client of this process
 * passes through Client.prototype.query) and held against the floor's statements; then the
 * floor's pgbench script runs, and must write the records the real pair wrote.
 */
const sent: { app: string; text: string }[] = [];
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client & { connectionParameters?: { application_name?: string } }, ...args: unknown[]) {
  const config = args[0] as string | { text?: string } | undefined;
  const text = typeof config === 'string' ? config : config?.text;
  if (text) sent.push({ app: this.connectionParameters?.application_name ?? '', text });
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

let p: TestPlatform;
let world: GameWorld;

beforeAll(async () => {
  p = await startPlatform({ services: ['launcher', 'wallet', 'admin'] });
  world = await startGameWorld(p);
}, 60000);
afterAll(async () => {
  pg.Client.prototype.query = query;
  await p?.stop();
  await world?.sandbox.close();
});

async function pair(sessionId: string) {
  const bodies = pairBodies(sessionId, world.gameId, uniqueId('floor'));
  const out = await world.call('POST', '/api/balance/cash-out', bodies.cashOut);
  const inn = await world.call('POST', '/api/balance/cash-in', bodies.cashIn);
  expect([out.status, inn.status]).toEqual([200, 200]);
  return bodies;
}

test('When one of the bench\'s pairs goes through the gateway, then the gateway and the wallet send PostgreSQL exactly the pgbench floor\'s statements', async () => {
  const player = await world.launchPlayer({ balance: 1000 });
  await pair(player.sessionId); // the first call of a session fills the caches (session, game, casino, token)
  sent.length = 0;
  await pair(player.sessionId);
  const moneyPath = sent.filter((s) => s.app === 'relay-gateway' || s.app === 'relay-wallet').map((s) => s.text);
  expect(moneyPath).toEqual(moneyPairStatements().map((s) => numberedPlaceholders(s.sql)));
});

test('When the pgbench floor\'s script runs, then each run writes the records of a pair: both transactions SUCCESS with their attempts, the round settled', async () => {
  const version = spawnSync('pgbench', ['--version'], { encoding: 'utf8' });
  expect(version.status).toBe(0); // the floor phase of the bench needs it (postgresql-client)
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-pgbench-test-'));
  try {
    const file = path.join(dir, 'money-pair.sql');
    writeFileSync(file, pgbenchScript({ providerId: world.providerId, groupId: world.groupId, gameId: world.gameId }));
    const run = spawnSync('pgbench', ['-n', '-M', 'prepared', '-c', '2', '-t', '3', '-f', file, process.env.DATABASE_URL!], { encoding: 'utf8' });
    expect({ status: run.status, failed: /number of failed transactions: [1-9]/.test(run.stdout), stderr: run.stderr.split('\n').filter((l) => /error|abort/i.test(l)) }).toEqual({ status: 0, failed: false, stderr: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const db = p.db.primary;
  const transactions = await db('transactions').where({ provider_id: world.providerId }).where('round_id', 'like', 'pgr-%').select('category', 'status', 'amount', 'attempt');
  expect(transactions).toHaveLength(12);
  for (const t of transactions) expect(t).toEqual({ category: t.category, status: 'SUCCESS', amount: t.category === 'CASH_OUT' ? '1.00' : '1.50', attempt: 1 });
  const attempts = await db('transaction_attempts as a').join('transactions as t', function () {
    this.on('t.id', 'a.transaction_pk').andOn('t.created_at', 'a.transaction_created_at');
  }).where('t.provider_id', world.providerId).where('t.round_id', 'like', 'pgr-%').select('a.outcome');
  expect(attempts.map((a) => a.outcome)).toEqual(Array(12).fill('SUCCESS'));
  const rounds = await db('rounds').where({ provider_id: world.providerId }).where('round_id', 'like', 'pgr-%').select('status', 'bet_amount', 'payout_amount', 'settle_reason');
  expect(rounds).toEqual(Array(6).fill({ status: 'SETTLED', bet_amount: '1.00', payout_amount: '1.50', settle_reason: 'NORMAL_WIN' }));
});
