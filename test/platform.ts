import pg from 'pg';
import {
  closeRuntime,
  createDatabase,
  createLogger,
  closeDatabase,
  replicationBarrier,
  startHeartbeat,
  createRedis,
  IdentitySigner,
  loadConfig,
  createRuntime,
  type Config,
  type Database,
  type Identity,
  type Redis,
  type Runtime,
  type RunningServer,
  type ServiceName,
} from '@relay/shared';

type DestinationStream = NonNullable<Parameters<typeof createLogger>[0]['destination']>;

/**
 * The whole platform in this test process: every service on its own ephemeral port with its own
 * runtime (pools, Redis, metrics), behind a real gateway, talking to real PostgreSQL and Redis.
 * Tests send real HTTP to `baseUrl`, exactly as a game backend, a casino or an operator would.
 */
export type Starter = (rt: Runtime, port: number) => Promise<{ server: RunningServer; close?: () => Promise<void> }>;

type InnerService = Exclude<ServiceName, 'gateway'>;

const starters: Record<ServiceName, () => Starter> = {
  /* eslint-disable @typescript-eslint/no-require-imports */
  launcher: () => require('../services/launcher/src').startLauncher,
  wallet: () => require('../services/wallet/src').startWallet,
  reporting: () => require('../services/reporting/src').startReporting,
  notifier: () => require('../services/notifier/src').startNotifier,
  admin: () => require('../services/admin/src').startAdmin,
  backoffice: () => require('../services/backoffice/src').startBackoffice,
  gateway: () => require('../services/gateway/src').startGateway,
  /* eslint-enable @typescript-eslint/no-require-imports */
};

export const ALL_SERVICES: InnerService[] = ['launcher', 'wallet', 'reporting', 'notifier', 'admin', 'backoffice'];

export interface TestPlatform {
  baseUrl: string;
  config: Config;
  db: Database;
  redis: Redis;
  services: Partial<Record<ServiceName, RunningServer>>;
  runtimes: Partial<Record<ServiceName, Runtime>>;
  adminToken: string;
  /** A gateway identity header, for tests that call a service directly. */
  identityHeader(identity: Identity): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

export interface PlatformOptions {
  env?: Record<string, string>;
  services?: InnerService[];
  /** Runs a notifier worker in this process too (default: when the notifier is started). */
  notifierWorker?: boolean;
  /** Every log line of every service (and the worker), at level trace, goes here instead of stdout. */
  logDestination?: DestinationStream;
}

let platformCounter = 0;

export async function startPlatform(options: PlatformOptions = {}): Promise<TestPlatform> {
  // Each platform gets Redis keys and queues of its own, so a notifier worker of a platform in
  // another test file (running in parallel) never takes this one's jobs.
  platformCounter += 1;
  const prefix = `${process.env.REDIS_KEY_PREFIX ?? 'test'}_p${process.pid}_${platformCounter}`;
  const env: NodeJS.ProcessEnv = { ...process.env, REDIS_KEY_PREFIX: prefix, ...options.env };
  const wanted = options.services ?? ALL_SERVICES;
  const runtimes: Partial<Record<ServiceName, Runtime>> = {};
  const services: Partial<Record<ServiceName, RunningServer>> = {};
  const closers: (() => Promise<void>)[] = [];
  const urls: Record<string, string> = {};

  const runtimeOptions = (service: string) =>
    options.logDestination ? { logger: createLogger({ service, level: 'trace', destination: options.logDestination }) } : {};

  const startOne = async (name: ServiceName, config: Config) => {
    const rt = await createRuntime(name, config, runtimeOptions(name));
    runtimes[name] = rt;
    const started = await starters[name]()(rt, 0);
    services[name] = started.server;
    closers.unshift(async () => {
      await started.server.close(2000);
      if (started.close) await started.close();
      await closeRuntime(rt);
    });
    return started.server;
  };

  for (const name of wanted) {
    if (typeof starters[name]() !== 'function') continue; // a service not built yet
    const server = await startOne(name, loadConfig(env));
    urls[`${name.toUpperCase()}_URL`] = server.url;
  }
  const config = loadConfig({ ...env, ...urls });
  if (options.notifierWorker ?? wanted.includes('notifier')) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startNotifierWorker } = require('../services/notifier/src');
    const rt = await createRuntime('notifier', config, { ...runtimeOptions('notifier-worker'), metricsService: 'notifier-worker' });
    const worker = await startNotifierWorker(rt);
    closers.unshift(async () => {
      await worker.close();
      await closeRuntime(rt);
    });
  }
  const gateway = await startOne('gateway', config);
  checkedOrigins.add(new URL(gateway.url).origin);
  const db = createDatabase({ url: config.DATABASE_URL, reportingUrl: config.reportingDatabaseUrl, poolMax: 4, name: 'test' });
  // The replicated heartbeat, as the ledger jobs' process writes it in production: reporting's lag clock.
  const stopHeartbeat = startHeartbeat(db.primary, config.REPLICATION_HEARTBEAT_MS, () => undefined);
  const redis = createRedis(config.REDIS_URL, 'client');
  const signer = new IdentitySigner(config.INTERNAL_AUTH_SECRET);

  return {
    baseUrl: gateway.url,
    config,
    db,
    redis,
    services,
    runtimes,
    adminToken: config.ADMIN_TOKEN,
    identityHeader: async (identity) => ({ 'x-relay-identity': await signer.sign(identity) }),
    stop: async () => {
      stopHeartbeat();
      for (const close of closers) await close();
      await closeDatabase(db);
      redis.disconnect();
    },
  };
}

/**
 * Origins of the gateways started here: every answer they give on a route of the API reference is
 * held against it (test/api/support/contract.ts), in every suite, so an undocumented status or
 * field fails the test that received it. Loaded on first use.
 */
const checkedOrigins = new Set<string>();
let contract: import('./api/support/contract').ContractChecker | undefined;

function checkAgainstReference(method: string, url: string, answer: { status: number; text: string; headers: Headers }): void {
  const parsed = new URL(url);
  // 431: Node's HTTP parser refused the request line before any route ran; no route answers it.
  if (!checkedOrigins.has(parsed.origin) || answer.status === 431) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  contract ??= new (require('./api/support/contract').ContractChecker)() as import('./api/support/contract').ContractChecker;
  if (!contract.find(method, url)) return;
  contract.check(method, `${parsed.pathname}${parsed.search}`, answer);
}

/**
 * The routes that read the reporting database (reporting's, the back office's money views). A
 * record written by a money call reaches it within the replication lag (docs/reporting-database.md,
 * "Read after write"): before such a request the test waits on the replication barrier, so it
 * reads what every earlier call wrote; nothing waits a fixed time.
 */
const REPORTING_PATHS = /^\/(api\/v1\/(rounds|transactions|providers\/|provider-catalog)|backoffice\/v1\/money)/;
function readsReporting(url: string): boolean {
  try {
    return REPORTING_PATHS.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

let barrierPools: { money: pg.Pool; reporting: pg.Pool } | undefined;

/** Waits until everything committed on this run's money database is in its reporting database. */
export async function replicated(timeoutMs?: number): Promise<void> {
  const money = process.env.DATABASE_URL;
  const reporting = process.env.REPORTING_DATABASE_URL;
  if (!money || !reporting) return;
  if (!barrierPools) {
    barrierPools = {
      money: new pg.Pool({ connectionString: money, max: 2, idleTimeoutMillis: 1000, allowExitOnIdle: true }),
      reporting: new pg.Pool({ connectionString: reporting, max: 2, idleTimeoutMillis: 1000, allowExitOnIdle: true }),
    };
    // An idle connection closed under the pool (a test drops the reporting database) is replaced on next use.
    barrierPools.money.on('error', () => undefined);
    barrierPools.reporting.on('error', () => undefined);
  }
  await replicationBarrier(barrierPools.money, barrierPools.reporting, timeoutMs);
}

/** Small HTTP helper: JSON in, status + parsed JSON out. */
export async function http(
  method: string,
  url: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {},
): Promise<{ status: number; body: any; headers: Headers; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (options.raw !== undefined) payload = options.raw;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  if (readsReporting(url)) await replicated();
  const res = await fetch(url, { method, headers, body: payload, redirect: 'manual' });
  const text = await res.text();
  let body: any = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  checkAgainstReference(method, url, { status: res.status, text, headers: res.headers });
  return { status: res.status, body, headers: res.headers, text };
}

let counter = 0;
/** Ids unique across test files and runs, so files can share one database. */
export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

/** Game ids are integers: random in a wide range, so parallel test files never collide. */
export function uniqueGameId(): number {
  return 1 + Math.floor(Math.random() * 2_000_000_000);
}
