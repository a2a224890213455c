import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { loadConfig, randomSecret } from '@relay/shared';
import { prepareDatabases } from '@relay/ledger';
import { localServer } from './local-postgres';
import { ensureConsoleAccounts } from './demo-accounts';
import { ROOT } from './services';
import { Supervisor } from './supervisor';

/**
 * `npm run demo`: the platform (every service in its own process, as `npm start`), the sandbox
 * casino and the demo game, provisioned through the admin API as an operator would, then the
 * casino lobby's address. Re-running against the same database provisions the same records again
 * (the old provider token is revoked). Ctrl-C / SIGTERM stops every process.
 *
 * Ports: GATEWAY_PORT and the service ports as `npm start`, SANDBOX_PORT (8090), DEMO_GAME_PORT (8091).
 * DEMO_ALLOW_FORCED_OUTCOME=1 lets the game page force a win or a loss (browser tests).
 */
const DEMO = {
  groupId: 'demo-studio',
  providerId: 'demo-casino',
  gameId: 7001,
  gameName: 'Relay Dice',
  currency: 'EUR',
  players: [
    { playerId: 'demo-alice', username: 'Alice', balance: 100 },
    { playerId: 'demo-bob', username: 'Bob', balance: 250 },
    { playerId: 'demo-carol', username: 'Carol', balance: 20 },
  ],
};
const EUR_LIMITS = { minBet: 0.1, maxBet: 100, defaultBet: 1, betSuggestions: [0.5, 1, 5, 10, 25], maxWin: 1000, isRoundable: true, isDefault: true };
const READY_TIMEOUT_MS = 90_000;

const log = (msg: string, level = 'info') => console.error(JSON.stringify({ level, service: 'demo', time: new Date().toISOString(), msg }));

/** One extra process (the sandbox casino, the demo game): any exit we did not ask for stops the demo. */
class Child {
  private readonly child: ChildProcess;
  private stopping = false;
  readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    script: string,
    env: NodeJS.ProcessEnv,
    onUnexpectedExit: (name: string) => void,
  ) {
    this.child = spawn(process.execPath, [path.join(ROOT, script)], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.once('exit', (code, signal) => {
      if (this.stopping) return;
      log(`${name} exited unexpectedly (code ${code}, signal ${signal})`, 'error');
      onUnexpectedExit(name);
    });
  }

  /** From now on an exit is expected (the demo is stopping). */
  expectExit(): void {
    this.stopping = true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    this.child.kill('SIGTERM');
    await this.exited;
    clearTimeout(kill);
  }
}

class Demo {
  private readonly env: NodeJS.ProcessEnv;
  private readonly config: ReturnType<typeof loadConfig>;
  private readonly sandboxUrl: string;
  private readonly gameUrl: string;
  private readonly children: Child[] = [];
  private supervisor: Supervisor | undefined;
  private stopping: Promise<void> | undefined;
  private failed = false;

  constructor(env: NodeJS.ProcessEnv) {
    // Quiet by default: the lobby address should not scroll away under request logs.
    this.env = { ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'warn', SANDBOX_QUIET: env.SANDBOX_QUIET ?? '1' };
    this.config = loadConfig(this.env);
    this.sandboxUrl = `http://127.0.0.1:${port(this.env, 'SANDBOX_PORT', 8090)}`;
    this.gameUrl = `http://127.0.0.1:${port(this.env, 'DEMO_GAME_PORT', 8091)}/`;
  }

  private get relayUrl(): string {
    return this.config.serviceUrls.gateway;
  }

  async start(): Promise<void> {
    const prepared = await prepareDatabases(this.config.DATABASE_URL, this.config.reportingDatabaseUrl, { log: (msg) => log(msg) });
    log(prepared.money.length ? `applied migrations: ${prepared.money.join(', ')}` : 'database schema is up to date');
    if (prepared.subscription === 'created') log(`reporting database ${new URL(this.config.reportingDatabaseUrl).pathname.slice(1)} created and subscribed to the money database`);

    this.spawn('casino-sandbox', 'tools/casino-sandbox/dist/main.js', { SANDBOX_PORT: new URL(this.sandboxUrl).port, SANDBOX_HOST: '127.0.0.1' });
    await this.waitFor(`${this.sandboxUrl}/healthz`, 'the casino sandbox');

    this.supervisor = new Supervisor(this.env, (msg, fields) => log(fields ? `${msg} ${JSON.stringify(fields)}` : msg, fields ? 'warn' : 'info'));
    this.supervisor.start();
    await this.waitFor(`${this.relayUrl}/readyz`, 'the platform');

    const { providerToken, walletSecret, launchKey } = await this.provision();
    await this.setUpCasino(walletSecret, launchKey);
    const accounts = await ensureConsoleAccounts(this.relayUrl, this.config.ADMIN_TOKEN, DEMO.providerId, call);

    this.spawn('demo-game', 'tools/demo-game/dist/main.js', {
      RELAY_URL: this.relayUrl,
      RELAY_PROVIDER_TOKEN: providerToken,
      GAME_ID: String(DEMO.gameId),
      DEMO_GAME_PORT: new URL(this.gameUrl).port,
      DEMO_GAME_HOST: '127.0.0.1',
    });
    await this.waitFor(`${this.gameUrl}healthz`, 'the demo game');

    console.log(
      [
        '',
        'Game Relay demo is running.',
        `  Casino lobby: ${this.sandboxUrl}/lobby   <- open this, pick a player, press Play`,
        `  Relay:        ${this.relayUrl}   (admin API: /admin/v1 with ADMIN_TOKEN)`,
        `  Demo game:    ${this.gameUrl}   (reached from the lobby through ${this.relayUrl}/launch)`,
        `  Console:      ${this.relayUrl}/console/   <- the back office: sign in with an email and password below,`,
        '                then the 6-digit code of `npm run demo:totp` (or add the TOTP secret to an authenticator app)',
        ...accounts.map((a) => `    ${a.role === 'admin' ? 'platform admin ' : `support, ${DEMO.providerId}`}  ${a.email}  password ${a.password}  TOTP secret ${a.totpSecret}`),
        'Ctrl-C stops everything.',
        '',
      ].join('\n'),
    );
  }

  /** Idempotent: every PUT creates or replaces; only the newest provider token stays valid. */
  private async provision(): Promise<{ providerToken: string; walletSecret: string; launchKey: string }> {
    const { groupId, providerId, gameId, currency } = DEMO;
    await this.admin('PUT', `game-providers/${groupId}`, { name: 'Demo Studio', status: 'ACTIVE' });
    const group = (await this.admin('GET', `game-providers/${groupId}`)) as { tokens?: { tokenId: string; revokedAt: string | null }[] };
    for (const old of group.tokens ?? []) {
      if (old.revokedAt === null) await this.admin('DELETE', `game-providers/${groupId}/tokens/${encodeURIComponent(old.tokenId)}`);
    }
    const { token } = (await this.admin('POST', `game-providers/${groupId}/tokens`)) as { token: string };
    await this.admin('PUT', `games/${gameId}`, { name: DEMO.gameName, groupId, frontendUrl: this.gameUrl, status: 'ACTIVE' });

    // The casino's secrets are chosen here and handed to the sandbox, which plays that casino.
    const walletSecret = randomSecret(32);
    const launchKey = randomSecret(32);
    await this.admin('PUT', `casinos/${providerId}`, { name: 'Demo Casino', walletUrl: `${this.sandboxUrl}/wallet`, walletSecret, launchKey, status: 'ACTIVE' });
    await this.admin('PUT', `casinos/${providerId}/games/${gameId}/currencies/${currency}`, EUR_LIMITS);
    log(`provisioned game provider ${groupId}, game ${gameId}, casino ${providerId} (${currency})`);
    return { providerToken: token, walletSecret, launchKey };
  }

  private async setUpCasino(walletSecret: string, launchKey: string): Promise<void> {
    const { providerId, gameId, currency } = DEMO;
    await this.sandbox('POST', 'secrets', { providerId, secret: walletSecret });
    await this.sandbox('PUT', 'lobby', { launcherUrl: this.relayUrl, providerId, launchKey, gameId, currency, language: 'en', casinoName: 'Demo Casino', gameName: DEMO.gameName });
    for (const p of DEMO.players) {
      await this.sandbox('POST', 'players', { providerId, playerId: p.playerId, username: p.username, balance: p.balance, walletToken: randomSecret(24) });
    }
  }

  private async admin(method: string, route: string, body?: unknown): Promise<unknown> {
    const res = await call(method, `${this.relayUrl}/admin/v1/${route}`, body, { authorization: `Bearer ${this.config.ADMIN_TOKEN}` });
    if (res.status >= 300) throw new Error(`admin ${method} /admin/v1/${route} answered ${res.status}: ${res.text}`);
    return (res.body as { data: unknown }).data;
  }

  private async sandbox(method: string, route: string, body: unknown): Promise<void> {
    const res = await call(method, `${this.sandboxUrl}/_control/${route}`, body);
    if (res.status >= 300) throw new Error(`sandbox ${method} /_control/${route} answered ${res.status}: ${res.text}`);
  }

  private spawn(name: string, script: string, extra: Record<string, string>): void {
    if (this.stopping) throw new Error(`stopping: ${name} not started`);
    this.children.push(new Child(name, script, { ...this.env, ...extra }, (n) => void this.stop(`${n} exited`, { failed: true })));
  }

  private async waitFor(url: string, what: string): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (this.stopping) throw new Error(`stopped while waiting for ${what}`);
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
        // The gateway is ready before the services behind it: wait until its readiness shows every one ok.
        const checks = res.ok ? ((await res.json().catch(() => ({}))) as { checks?: Record<string, string> }).checks : undefined;
        if (res.ok && (!checks || Object.values(checks).every((c) => c === 'ok'))) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${what} was not ready at ${url} within ${READY_TIMEOUT_MS / 1000} s`);
  }

  /**
   * Stops the demo game first (no new rounds, in-flight ones finish against a live platform), then
   * the platform, then the casino; once. `together`: Ctrl-C in a terminal has already reached every
   * process of the group, so the supervisor is told at once that the services' exits are expected.
   */
  stop(reason: string, options: { failed?: boolean; together?: boolean } = {}): Promise<void> {
    if (options.failed) this.failed = true;
    if (this.stopping) return this.stopping;
    log(`${reason}; stopping every process`);
    for (const child of this.children) child.expectExit();
    const platform = options.together ? this.supervisor?.stop() : undefined;
    this.stopping = (async () => {
      const game = this.children.find((c) => c.name === 'demo-game');
      if (game) await game.stop();
      if ((await (platform ?? this.supervisor?.stop())) === 1) this.failed = true;
      for (const child of this.children) await child.stop();
      process.exit(this.failed ? 1 : 0);
    })();
    return this.stopping;
  }
}

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1 || value > 65535) throw new Error(`${name} must be a port from 1 to 65535`);
  return value;
}

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string; body: unknown }> {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, text, body: parsed };
}

async function main(): Promise<void> {
  let demo: Demo;
  try {
    if (!process.env.DATABASE_URL) {
      // The money database publishes to the reporting database: the server needs wal_level=logical.
      // The machine's server when it has it, else a cluster of the demo's own (local-postgres.ts).
      const server = await localServer();
      process.env.DATABASE_URL = `${server.baseUrl}/relay`;
      if (server.dataDir) log(`PostgreSQL at 127.0.0.1:5432 runs with wal_level=replica: the demo runs its own cluster (${server.dataDir}, ${server.baseUrl})`);
    }
    demo = new Demo(process.env);
  } catch (err) {
    log((err as Error).message, 'fatal');
    process.exit(1);
  }
  process.on('SIGINT', () => void demo.stop('SIGINT received', { together: true }));
  process.on('SIGTERM', () => void demo.stop('SIGTERM received'));
  try {
    await demo.start();
  } catch (err) {
    log(`demo failed to start: ${(err as Error).message}`, 'fatal');
    await demo.stop('start failed', { failed: true });
  }
}

void main();
