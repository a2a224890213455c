import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { dropDatabase, dropSubscription, loadConfig } from '@relay/shared';
import { http } from '../platform';
import { freePort, ROOT } from '../processes';
import { currentCode } from '../../services/backoffice/src/domain/totp';

/**
 * The quick start's demo, as a person uses it: `node tools/platform/dist/demo.js` (built code, every
 * process real) on free ports and its own database, driven in Debian's chromium through the casino
 * lobby and the demo game page. Money is checked on both sides: what the page shows, the sandbox
 * casino's ledger, and the relay's records. Screenshots go to test-output/e2e/ for review.
 */
const SHOTS = path.join(ROOT, 'test-output', 'e2e');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PROVIDER = 'demo-casino';

interface DemoRun {
  child: ChildProcess;
  lobbyUrl: string;
  output: () => string;
  exited: Promise<number | null>;
}

// The suite's server (wal_level=logical; test/global-setup.ts); the demo makes its reporting database beside it.
const dbUrl = `${process.env.TEST_DATABASE_BASE_URL}/relay_e2e_${Date.now()}_${randomBytes(3).toString('hex')}`;
let env: NodeJS.ProcessEnv;
let browser: Browser;
const runs: DemoRun[] = [];

async function startDemo(): Promise<DemoRun> {
  const child = spawn(process.execPath, [path.join(ROOT, 'tools/platform/dist/demo.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const run: DemoRun = { child, lobbyUrl: '', output: () => out, exited };
  runs.push(run);
  for (let i = 0; i < 600 && !run.lobbyUrl; i++) {
    if (child.exitCode !== null) throw new Error(`the demo exited with ${child.exitCode}:\n${out}`);
    run.lobbyUrl = /Casino lobby: (\S+)/.exec(out)?.[1] ?? '';
    await new Promise((r) => setTimeout(r, 200));
  }
  if (!run.lobbyUrl) throw new Error(`the demo printed no lobby address:\n${out}`);
  return run;
}

/** SIGTERM, then the exit code; every process the demo started must be gone afterwards. */
async function stopDemo(run: DemoRun): Promise<{ code: number | null; leftovers: number[] }> {
  const children = childrenOf(run.child.pid!);
  run.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([run.exited, new Promise<null>((r) => (timer = setTimeout(() => r(null), 45000)))]);
  clearTimeout(timer);
  const leftovers = children.filter(alive);
  for (const pid of leftovers) process.kill(pid, 'SIGKILL');
  if (run.child.exitCode === null) run.child.kill('SIGKILL');
  return { code, leftovers };
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const [gateway, launcher, wallet, reporting, notifier, admin, sandbox, game, backoffice] = await Promise.all(Array.from({ length: 9 }, freePort));
  const { REPORTING_DATABASE_URL: _ignored, ...inherited } = process.env;
  env = {
    ...inherited,
    DATABASE_URL: dbUrl,
    REDIS_KEY_PREFIX: `e2e_${process.pid}_${randomBytes(3).toString('hex')}`,
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_PORT: String(gateway),
    LAUNCHER_PORT: String(launcher),
    WALLET_PORT: String(wallet),
    REPORTING_PORT: String(reporting),
    NOTIFIER_PORT: String(notifier),
    ADMIN_PORT: String(admin),
    BACKOFFICE_PORT: String(backoffice),
    SANDBOX_PORT: String(sandbox),
    DEMO_GAME_PORT: String(game),
    DEMO_ALLOW_FORCED_OUTCOME: '1',
    // The console accounts the demo keeps: here, not in the developer's own .demo/.
    DEMO_ACCOUNTS_FILE: path.join(SHOTS, `console-accounts-${process.pid}.json`),
    LOG_LEVEL: 'warn',
  };
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}, 60000);

// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  await browser?.close();
  for (const run of runs) if (run.child.exitCode === null && run.child.signalCode === null) await stopDemo(run);
  await dropSubscription(dbUrl, `${dbUrl}_reporting`);
  await dropDatabase(`${dbUrl}_reporting`);
  await dropDatabase(dbUrl);
}, 120_000);

describe('the demo in a browser', () => {
  it('When a player plays a winning and a losing round from the lobby, then the page, the casino ledger and the relay records agree', async () => {
    const run = await startDemo();
    const sandboxUrl = new URL(run.lobbyUrl).origin;
    const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    const seen = watchTraffic(page);

    await page.goto(run.lobbyUrl);
    expect(await balanceInLobby(page, 'demo-alice')).toBe('100.00 EUR');
    await page.screenshot({ path: path.join(SHOTS, '01-lobby.png') });

    await page.click('tr[data-player-id="demo-alice"] button');
    await page.waitForSelector('body[data-state="ready"]');
    const gameOrigin = new URL(page.url()).origin;
    expect(new URL(page.url()).searchParams.get('sessionId')).toBeTruthy();
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    expect(await page.textContent('#player')).toBe('Alice');
    expect(await page.textContent('#balance')).toBe('100.00');
    await page.screenshot({ path: path.join(SHOTS, '02-game.png') });

    const win = await roll(page, { amount: '10', chance: 50, force: 'WIN', rolls: 1 });
    expect(win.outcome).toBe('WIN 19.80 EUR');
    expect(win.balance).toBe('109.80');
    await page.screenshot({ path: path.join(SHOTS, '03-after-win.png') });

    const loss = await roll(page, { amount: '5', chance: 25, force: 'LOSS', rolls: 2 });
    expect(loss.outcome).toBe('LOSS');
    expect(loss.balance).toBe('104.80');
    await page.waitForFunction("document.querySelectorAll('#rounds tbody tr:not(.empty)').length === 2");
    expect(await page.locator('#rounds tbody tr').allInnerTexts()).toEqual([expect.stringMatching(/5\.00\s+0\.00\s+BET_LOST\s+SETTLED/), expect.stringMatching(/10\.00\s+19\.80\s+NORMAL_WIN\s+SETTLED/)]);
    expect(await page.locator('#transactions tbody tr').count()).toBe(4);
    await page.screenshot({ path: path.join(SHOTS, '04-after-loss.png'), fullPage: true });

    // The casino's side: its ledger and journal, and one round-ended notice per round.
    const ledger = await http('GET', `${sandboxUrl}/_control/ledger?providerId=${PROVIDER}&playerId=demo-alice`);
    expect(ledger.body.players[0].balanceText).toBe('104.8');
    const journal = await http('GET', `${sandboxUrl}/_control/journal?providerId=${PROVIDER}&playerId=demo-alice`);
    expect(journal.body.entries.map((e: { operation: string; amount: number }) => [e.operation, e.amount])).toEqual([
      ['debit', 10],
      ['credit', 19.8],
      ['debit', 5],
      ['credit', 0],
    ]);
    for (const roundId of [win.roundId, loss.roundId]) {
      await eventually(async () => (await http('GET', `${sandboxUrl}/_control/round-ended?providerId=${PROVIDER}&roundId=${roundId}`)).body.count === 1);
    }

    // The relay's side, read as the game provider would (a token issued for the test, then revoked).
    const relay = await relayReader(run);
    try {
      const rounds = await http('GET', `${relay.url}/api/v1/rounds?providerId=${PROVIDER}&playerId=demo-alice&sortBy=openedAt&sortOrder=asc`, { token: relay.token });
      expect(rounds.body.data).toEqual([
        expect.objectContaining({ roundId: win.roundId, status: 'SETTLED', betAmount: 10, payoutAmount: 19.8, appliedMultiplier: 1.98, settleReason: 'NORMAL_WIN', outcome: 'WIN' }),
        expect.objectContaining({ roundId: loss.roundId, status: 'SETTLED', betAmount: 5, payoutAmount: 0, appliedMultiplier: 0, settleReason: 'BET_LOST', outcome: 'LOSS' }),
      ]);
      const settle = await http('GET', `${relay.url}/api/v1/transactions?providerId=${PROVIDER}&playerId=demo-alice&category=CASH_IN&sortBy=createdAt&sortOrder=asc`, { token: relay.token });
      expect(settle.body.data.map((t: Record<string, unknown>) => [t.reason, t.amount, t.previousTransactionId, t.balance])).toEqual([
        ['NORMAL_WIN', 19.8, `${win.roundId}-bet`, 109.8],
        ['BET_LOST', 0, `${loss.roundId}-bet`, 104.8],
      ]);
    } finally {
      await relay.revoke();
    }

    // The page only ever talked to its own backend, and never saw the provider token.
    const providerToken = demoGameToken(run);
    expect(seen.bodies.some((b) => b.includes(providerToken))).toBe(false);
    expect(page.url()).not.toContain(providerToken);
    expect(seen.calls.filter((c) => c.startsWith(gameOrigin)).every((c) => !/\/api\//.test(c))).toBe(true);
    expect(seen.calls.some((c) => c.startsWith(`${gameOrigin}/demo/bet`))).toBe(true);

    await page.click('#back');
    await page.waitForURL(`${sandboxUrl}/lobby`);
    expect(await balanceInLobby(page, 'demo-alice')).toBe('104.80 EUR');
    await page.screenshot({ path: path.join(SHOTS, '05-lobby-after.png') });
    await page.close();

    // The console: the printed platform admin signs in with the printed password and a code of the printed secret.
    const admin = consoleAccount(run, 'platform admin');
    expect(run.output()).toContain(`Console:      ${relay.url}/console/`);
    expect(await consoleSignIn(relay.url, admin)).toBe(200);
    firstRunAdmin = admin.email;

    const stopped = await stopDemo(run);
    expect({ code: stopped.code, leftovers: stopped.leftovers, output: stopped.code === 0 ? '' : run.output() }).toEqual({ code: 0, leftovers: [], output: '' });
  }, 180000);

  it('When the demo is started again on the same database, then it provisions again with one live provider token and plays', async () => {
    const run = await startDemo();
    const relay = await relayReader(run);
    try {
      const group = await http('GET', `${relay.url}/admin/v1/game-providers/demo-studio`, { token: relay.adminToken });
      const live = group.body.data.tokens.filter((t: { revokedAt: string | null }) => t.revokedAt === null);
      expect(live).toHaveLength(2); // the demo game's and this test's reader
    } finally {
      await relay.revoke();
    }

    const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    await page.goto(run.lobbyUrl);
    await page.click('tr[data-player-id="demo-bob"] button');
    await page.waitForSelector('body[data-state="ready"]');
    expect(await page.textContent('#balance')).toBe('250.00');
    // The same console accounts as the first run, still signing in.
    expect(consoleAccount(run, 'platform admin').email).toBe(firstRunAdmin);
    const loss = await roll(page, { amount: '25', chance: 75, force: 'LOSS', rolls: 1 });
    expect(loss.balance).toBe('225.00');
    await page.screenshot({ path: path.join(SHOTS, '06-second-run.png') });
    await page.close();

    const stopped = await stopDemo(run);
    expect({ code: stopped.code, leftovers: stopped.leftovers }).toEqual({ code: 0, leftovers: [] });
  }, 180000);
});

let firstRunAdmin = '';

/** A console account as the demo prints it: role, email, password and TOTP secret on one line. */
function consoleAccount(run: DemoRun, role: string): { email: string; password: string; secret: string } {
  const line = new RegExp(`${role}\\s+(\\S+@\\S+)\\s+password (\\S+)\\s+TOTP secret (\\S+)`).exec(run.output());
  if (!line) throw new Error(`the demo printed no ${role} console account:\n${run.output()}`);
  return { email: line[1], password: line[2], secret: line[3] };
}

async function consoleSignIn(relayUrl: string, a: { email: string; password: string; secret: string }): Promise<number> {
  const first = await http('POST', `${relayUrl}/backoffice/v1/auth/sign-in`, { body: { email: a.email, password: a.password } });
  if (first.status !== 200) return first.status;
  const second = await http('POST', `${relayUrl}/backoffice/v1/auth/second-factor`, { body: { challenge: first.body.data.challenge, code: currentCode(a.secret, Date.now() + 30_000) } });
  return second.status;
}

async function roll(page: Page, bet: { amount: string; chance: number; force: 'WIN' | 'LOSS'; rolls: number }) {
  await page.fill('#amount', bet.amount);
  await page.click(`#chance-${bet.chance}`);
  await page.selectOption('#force', bet.force);
  await page.click('#roll');
  await page.waitForSelector(`body[data-rolls="${bet.rolls}"]`);
  expect(await page.isHidden('#error')).toBe(true);
  return {
    outcome: (await page.textContent('#result-outcome')) ?? '',
    balance: (await page.textContent('#balance')) ?? '',
    roundId: (await page.getAttribute('#result', 'data-round-id')) ?? '',
  };
}

function balanceInLobby(page: Page, playerId: string): Promise<string | null> {
  return page.textContent(`tr[data-player-id="${playerId}"] .balance`);
}

/** Every URL the page requested, and every text body it received. */
function watchTraffic(page: Page): { calls: string[]; bodies: string[] } {
  const seen = { calls: [] as string[], bodies: [] as string[] };
  page.on('request', (req) => void seen.calls.push(req.url()));
  page.on('response', (res) => {
    if (res.status() >= 300 && res.status() < 400) return; // redirects have no body to read
    res.text().then((t) => void seen.bodies.push(t), () => undefined);
  });
  return seen;
}

/** A game provider token for reading reporting, issued through the admin API and revoked after. */
async function relayReader(run: DemoRun) {
  const url = `http://127.0.0.1:${env.GATEWAY_PORT}`;
  const adminToken = loadConfig(env).ADMIN_TOKEN;
  const issued = await http('POST', `${url}/admin/v1/game-providers/demo-studio/tokens`, { token: adminToken });
  if (issued.status !== 201) throw new Error(`token: ${issued.status} ${issued.text}\n${run.output()}`);
  const { token, tokenId } = issued.body.data;
  return { url, token: String(token), adminToken, revoke: async () => void (await http('DELETE', `${url}/admin/v1/game-providers/demo-studio/tokens/${tokenId}`, { token: adminToken })) };
}

/** The provider token the demo handed its game backend (from that process's environment). */
function demoGameToken(run: DemoRun): string {
  for (const pid of childrenOf(run.child.pid!)) {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!cmdline.includes('demo-game')) continue;
    const entry = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((e) => e.startsWith('RELAY_PROVIDER_TOKEN='));
    if (entry) return entry.slice('RELAY_PROVIDER_TOKEN='.length);
  }
  throw new Error('demo game process not found');
}

function childrenOf(pid: number): number[] {
  const result: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) result.push(Number(entry));
    } catch {
      // the process went away
    }
  }
  return result;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
