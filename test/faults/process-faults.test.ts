import { execFileSync } from 'node:child_process';
import { startPlatform, type TestPlatform } from '../platform';
import { startGameWorld, type GameWorld, type Player } from '../game';
import { adminPut } from '../provision';
import { freePort, ROOT, startServiceProcess, type ServiceProcess } from '../processes';
import { applied, betBody, roundRow, transactionRow, winBody } from '../../services/wallet/test/money-support';
import { leakedSecrets, playerSecrets, secretsOf } from '../security/support/secrets';
import { startBlackHole, type BlackHole } from './support/black-hole';
import { checkLedgerAgreement, checkRoundsConsistent } from './support/invariants';
import { eventually, sleep, type MoneyRoute } from './support/money';
import { scenarioIt, Tally } from './support/reliability';

/**
 * The wallet service as a real process, killed with SIGKILL at each point of a money call: after the
 * PENDING write before any casino saw the call, while the casino works on it, and after the casino
 * answered but before SUCCESS was written. No test hook in the service: the points are reached from
 * outside (a casino that never answers, a slow casino, a row lock held by the test).
 * services/wallet/test/crash.test.ts covers the kill after the casino applied a debit and before it answered.
 */
// Long enough that a killed wallet restarts inside it on a slow, loaded machine (the early repeat must be 409).
const WINDOW_SECONDS = 10;

const tally = new Tally(
  'process-faults',
  'Wallet process killed at each point of a money call',
  'test/faults/process-faults.test.ts',
  `SIGKILL of the wallet service process (built code, a real process) after the PENDING write, during the casino call and after the casino answered but before SUCCESS was written (the success UPDATE held by a row lock from the test). After IN_FLIGHT_WINDOW_SECONDS=${WINDOW_SECONDS} the identical request completes the movement with exactly one movement at the casino. The killed process's log is searched for secrets.`,
);
const scenario = scenarioIt(tally);

describe('wallet process killed mid money call', () => {
  let p: TestPlatform;
  let g: GameWorld;
  let hole: BlackHole;
  let port: number;
  let wallet: ServiceProcess | null = null;
  const logs: ServiceProcess[] = [];
  const players: Player[] = [];
  const worlds: GameWorld[] = [];

  const startWallet = async () => {
    wallet = await startServiceProcess('services/wallet/dist/main.js', { WALLET_PORT: String(port), IN_FLIGHT_WINDOW_SECONDS: String(WINDOW_SECONDS), CASINO_TIMEOUT_MS: '3000', LOG_LEVEL: 'debug', REDIS_KEY_PREFIX: p.config.REDIS_KEY_PREFIX }, `http://127.0.0.1:${port}/healthz`);
    logs.push(wallet);
  };
  const killWallet = async () => {
    tally.fault('SIGKILL wallet');
    wallet!.child.kill('SIGKILL');
    await wallet!.exited;
  };
  const launch = async (world: GameWorld) => {
    const pl = await world.launchPlayer({ balance: 100 });
    players.push(pl);
    return pl;
  };
  const call = (world: GameWorld, route: MoneyRoute, body: object) => {
    tally.request();
    return world.call('POST', route, body);
  };
  /** The identical request after the in-flight window of the abandoned attempt. */
  async function repeatAfterWindow(world: GameWorld, route: MoneyRoute, body: { transactionId: string }) {
    const early = await call(world, route, body);
    expect(early.status).toBe(409);
    expect(early.body.error).toBe('TRANSACTION_IN_FLIGHT');
    const row = await transactionRow(p, world, body.transactionId);
    await sleep(Math.max(0, new Date(row.claimed_at).getTime() + WINDOW_SECONDS * 1000 - Date.now()) + 250);
    return call(world, route, body);
  }
  async function expectAgreement(world: GameWorld) {
    await checkLedgerAgreement(p, world);
    await checkRoundsConsistent(p, world);
    tally.check('ledger agreement');
    tally.check('rounds consistent with transactions');
  }

  beforeAll(async () => {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'services/wallet'], { cwd: ROOT, stdio: 'inherit' });
    port = await freePort();
    p = await startPlatform({ services: ['launcher', 'admin'], env: { WALLET_URL: `http://127.0.0.1:${port}` } });
    g = await startGameWorld(p);
    hole = await startBlackHole();
    worlds.push(g);
  }, 120000);
  afterEach(async () => {
    g.sandbox.clearFaults();
    if (wallet && wallet.child.exitCode === null) {
      wallet.child.kill('SIGTERM');
      await wallet.exited;
    }
  });
  afterAll(async () => {
    tally.write();
    if (wallet && wallet.child.exitCode === null) wallet.child.kill('SIGKILL');
    await p?.stop();
    await g?.sandbox.close();
    await hole?.close();
  });

  jest.setTimeout(60000);

  scenario('When the wallet dies after the PENDING write and before any casino saw the debit, then the same request after the window debits once', async () => {
    const world = await startGameWorld(p, { sandbox: g.sandbox, walletUrl: `${hole.url}/wallet` });
    worlds.push(world);
    await startWallet();
    const pl = await launch(world);
    const bet = betBody(world, pl, { amount: 10 });
    const seen = hole.requests();
    const lost = call(world, '/api/balance/cash-out', bet);
    await eventually(() => hole.requests() > seen, 10_000, 'the debit to be on the wire');
    expect(await transactionRow(p, world, bet.transactionId)).toMatchObject({ status: 'PENDING', completed_at: null, attempt: 1 });
    await killWallet();
    expect((await lost).status).toBeGreaterThanOrEqual(500);
    expect(g.sandbox.countCalls({ transactionId: bet.transactionId })).toBe(0);

    // The casino is reachable again (its real address), and the wallet restarts.
    expect((await adminPut(p, `casinos/${world.providerId}`, { name: `Casino ${world.providerId}`, walletUrl: g.sandbox.walletUrl })).status).toBe(200);
    await startWallet();
    const done = await repeatAfterWindow(world, '/api/balance/cash-out', bet);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ id: pl.playerId, balance: 90, username: pl.playerId });
    expect(applied(world, bet.transactionId)).toBe(1);
    expect(await transactionRow(p, world, bet.transactionId)).toMatchObject({ status: 'SUCCESS', attempt: 2 });
    expect(await roundRow(p, world, bet.roundId)).toMatchObject({ status: 'OPEN', bet_transaction_id: bet.transactionId });
    await expectAgreement(world);
  });

  scenario('When the wallet dies while the casino works on a credit, and the casino moves the money after the relay is gone, then the same request after the window credits once', async () => {
    await startWallet();
    const pl = await launch(g);
    const bet = betBody(g, pl, { amount: 10 });
    expect((await call(g, '/api/balance/cash-out', bet)).status).toBe(200);
    const win = winBody(g, pl, bet, { amount: 20 });
    g.sandbox.setFault({ providerId: g.providerId, playerId: pl.playerId, operation: 'credit' }, { kind: 'delay', ms: 1500 }, 1);
    tally.fault('delay 1500ms');
    const lost = call(g, '/api/balance/cash-in', win);
    await eventually(() => g.sandbox.countCalls({ transactionId: win.transactionId }) === 1, 10_000, 'the credit to reach the casino');
    await killWallet();
    expect((await lost).status).toBeGreaterThanOrEqual(500);
    expect(applied(g, win.transactionId)).toBe(0);
    await startWallet();
    await eventually(() => applied(g, win.transactionId) === 1, 10_000, 'the casino to move the money late');
    expect(await transactionRow(p, g, win.transactionId)).toMatchObject({ status: 'PENDING', completed_at: null });

    const done = await repeatAfterWindow(g, '/api/balance/cash-in', win);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ id: pl.playerId, balance: 110, username: pl.playerId });
    expect(applied(g, win.transactionId)).toBe(1);
    expect(await transactionRow(p, g, win.transactionId)).toMatchObject({ status: 'SUCCESS', attempt: 2 });
    expect(await roundRow(p, g, bet.roundId)).toMatchObject({ status: 'SETTLED', settle_transaction_id: win.transactionId, payout_amount: '20.00' });
    await expectAgreement(g);
  });

  /**
   * Holds a row lock on the transaction once its PENDING claim committed, so the wallet's SUCCESS
   * statement waits on it after the casino answered; kills the wallet there. `connectionDies`
   * also ends the wallet's database session (as when PostgreSQL notices the dead client), so the
   * waiting write never runs; otherwise the write already sent runs once the lock is released.
   */
  async function killBeforeSuccessWrite(route: MoneyRoute, body: { transactionId: string }, connectionDies: boolean) {
    g.sandbox.setFault({ providerId: g.providerId, operation: route === '/api/balance/cash-out' ? 'debit' : 'credit' }, { kind: 'delay', ms: 1500 }, 1);
    tally.fault('delay 1500ms');
    tally.fault('row lock on the transaction');
    const lost = call(g, route, body);
    await eventually(async () => (await transactionRow(p, g, body.transactionId))?.status === 'PENDING', 10_000, 'the PENDING claim');
    const trx = await p.db.primary.transaction();
    try {
      const me = Number((await trx.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid);
      await trx.raw('SELECT id FROM transactions WHERE provider_id = ? AND transaction_id = ? FOR UPDATE', [g.providerId, body.transactionId]);
      let waiting: number[] = [];
      await eventually(async () => {
        const found = await p.db.primary.raw('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND ? = ANY(pg_blocking_pids(pid))', [me]);
        waiting = found.rows.map((r: { pid: number }) => Number(r.pid));
        return waiting.length > 0;
      }, 10_000, 'the SUCCESS write to wait on the row lock');
      expect(applied(g, body.transactionId)).toBe(1); // the casino answered: the relay is writing SUCCESS
      await killWallet();
      if (connectionDies) for (const pid of waiting) await p.db.primary.raw('SELECT pg_terminate_backend(?)', [pid]);
    } finally {
      await trx.rollback();
    }
    expect((await lost).status).toBeGreaterThanOrEqual(500);
  }

  scenario('When the wallet dies after the casino answered a debit and before SUCCESS was written, then the record stays PENDING and the same request after the window completes it without a second debit', async () => {
    await startWallet();
    const pl = await launch(g);
    const bet = betBody(g, pl, { amount: 10 });
    await killBeforeSuccessWrite('/api/balance/cash-out', bet, true);
    expect(await transactionRow(p, g, bet.transactionId)).toMatchObject({ status: 'PENDING', completed_at: null });
    expect(await roundRow(p, g, bet.roundId)).toBeUndefined();

    await startWallet();
    const done = await repeatAfterWindow(g, '/api/balance/cash-out', bet);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ id: pl.playerId, balance: 90, username: pl.playerId });
    expect(applied(g, bet.transactionId)).toBe(1);
    expect(g.sandbox.getPlayer(g.providerId, pl.playerId)!.balance).toBe(90);
    expect(await roundRow(p, g, bet.roundId)).toMatchObject({ status: 'OPEN' });
    await expectAgreement(g);
  });

  scenario('When the wallet dies while its SUCCESS write of a credit waits on a lock, then the write it already sent completes and the same request replays it', async () => {
    await startWallet();
    const pl = await launch(g);
    const bet = betBody(g, pl, { amount: 10 });
    expect((await call(g, '/api/balance/cash-out', bet)).status).toBe(200);
    const win = winBody(g, pl, bet, { amount: 35, appliedMultiplier: 3.5 });
    await killBeforeSuccessWrite('/api/balance/cash-in/retry', win, false);
    await eventually(async () => (await transactionRow(p, g, win.transactionId)).status === 'SUCCESS', 10_000, 'the waiting write to commit');

    await startWallet();
    const calls = g.sandbox.countCalls({ transactionId: win.transactionId });
    const done = await call(g, '/api/balance/cash-in/retry', win);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ id: pl.playerId, balance: 125, username: pl.playerId });
    expect(g.sandbox.countCalls({ transactionId: win.transactionId })).toBe(calls);
    expect(applied(g, win.transactionId)).toBe(1);
    expect(await roundRow(p, g, bet.roundId)).toMatchObject({ status: 'SETTLED', settle_transaction_id: win.transactionId });
    await expectAgreement(g);
  });

  scenario('When the killed and restarted wallet processes logged these scenarios, then no log line holds a secret', async () => {
    const output = logs.map((l) => l.output()).join('\n');
    expect(output.length).toBeGreaterThan(0);
    expect(leakedSecrets(output, [...worlds.flatMap(secretsOf), ...playerSecrets(players)])).toEqual([]);
    tally.check('wallet log lines searched for secrets', output.split('\n').length);
  });
});
