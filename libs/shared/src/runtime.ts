import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import { type Config, loadConfig, type ServiceName } from './config';
import { closeDatabase, createDatabase, MONEY_PATH_POOL, type Database, type PoolPolicy } from './db';
import { closeRedis, createRedis } from './redis';
import { ChangeBus } from './cache';
import { ServiceMetrics } from './metrics';
import { registerPoolMetrics } from './pool-metrics';
import { IdentityVerifier } from './identity';
import { SecretBox } from './crypto';
import { createLogger } from './logger';
import type { ReadinessCheck } from './health';
import { listen, runMain, type RunningServer } from './lifecycle';
import { startTelemetry } from './telemetry';

/** What every service process holds: built once at start, closed last at shutdown. */
export interface Runtime {
  name: ServiceName;
  config: Config;
  logger: Logger;
  db: Database;
  redis: Redis;
  bus: ChangeBus;
  metrics: ServiceMetrics;
  verifier: IdentityVerifier;
  secrets: SecretBox;
  isStopping: () => boolean;
}

export interface RuntimeOptions {
  logger?: Logger;
  defaultMetrics?: boolean;
  /** The `service` label of this process's metrics when it is not the service's API (the notifier worker). */
  metricsService?: string;
}

/** Primary pools that differ from the default: the wallet's, on the money path (db.ts). */
const PRIMARY_POOLS: Partial<Record<ServiceName, PoolPolicy>> = { wallet: MONEY_PATH_POOL };

export async function createRuntime(name: ServiceName, config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger({ service: name, level: config.LOG_LEVEL });
  const db = createDatabase({ url: config.DATABASE_URL, reportingUrl: config.reportingDatabaseUrl, poolMax: config.DATABASE_POOL_MAX, name, log: logger, primaryPool: PRIMARY_POOLS[name] });
  const redis = createRedis(config.REDIS_URL, 'client');
  const bus = new ChangeBus(config.REDIS_URL, config.REDIS_KEY_PREFIX, redis);
  await bus.start();
  let stopping = false;
  const runtime: Runtime = {
    name,
    config,
    logger,
    db,
    redis,
    bus,
    metrics: new ServiceMetrics(options.metricsService ?? name, { defaultMetrics: options.defaultMetrics }),
    verifier: new IdentityVerifier(config.INTERNAL_AUTH_SECRET, config.INTERNAL_AUTH_SECRET_VERIFY_ONLY ? [config.INTERNAL_AUTH_SECRET_VERIFY_ONLY] : []),
    secrets: new SecretBox(config.DATA_ENCRYPTION_KEY, config.DATA_ENCRYPTION_KEY_DECRYPT_ONLY ? [config.DATA_ENCRYPTION_KEY_DECRYPT_ONLY] : []),
    isStopping: () => stopping,
  };
  (runtime as { markStopping?: () => void }).markStopping = () => (stopping = true);
  registerPoolMetrics(runtime.metrics, db, config.DATABASE_POOL_MAX);
  return runtime;
}

export function markStopping(rt: Runtime): void {
  (rt as { markStopping?: () => void }).markStopping?.();
}

export async function closeRuntime(rt: Runtime): Promise<void> {
  await rt.bus.stop();
  await closeRedis(rt.redis);
  await closeDatabase(rt.db);
}

/** Readiness of the dependencies every service shares. */
export function standardChecks(rt: Runtime, options: { reporting?: boolean } = {}): Record<string, ReadinessCheck> {
  const checks: Record<string, ReadinessCheck> = {
    postgres: async () => { await rt.db.primary.raw('select 1'); },
    redis: async () => { await rt.redis.ping(); },
  };
  if (options.reporting && rt.db.reporting !== rt.db.primary) checks.postgres_reporting = async () => { await rt.db.reporting.raw('select 1'); };
  return checks;
}

const PORT_KEYS = {
  gateway: 'GATEWAY_PORT',
  launcher: 'LAUNCHER_PORT',
  wallet: 'WALLET_PORT',
  reporting: 'REPORTING_PORT',
  notifier: 'NOTIFIER_PORT',
  admin: 'ADMIN_PORT',
  backoffice: 'BACKOFFICE_PORT',
} as const;

/**
 * The main.ts of every HTTP service: config, runtime, listen, and the ordered shutdown
 * (stop accepting and drain, then the service's own resources, then Redis and the pools).
 */
export function serviceMain(
  name: ServiceName,
  start: (rt: Runtime, port: number) => Promise<{ server: RunningServer; close?: () => Promise<void> }>,
): void {
  const config = loadConfig(process.env, { process: name });
  const logger = createLogger({ service: name, level: config.LOG_LEVEL });
  void runMain(logger, config.SHUTDOWN_TIMEOUT_MS, async (shutdown) => {
    // Before anything that could make a span: the pools, Redis and the app.
    const telemetry = await startTelemetry(`relay-${name}`, { logger });
    const rt = await createRuntime(name, config, { logger, defaultMetrics: true });
    const started = await start(rt, config[PORT_KEYS[name]]);
    shutdown.register('stop accepting and drain requests', async () => {
      markStopping(rt);
      await started.server.close(config.SHUTDOWN_TIMEOUT_MS - 2000);
    });
    if (started.close) shutdown.register(`close ${name} resources`, started.close);
    shutdown.register('close redis and database pools', () => closeRuntime(rt));
    shutdown.register('export buffered spans', () => telemetry.shutdown());
    logger.info({ port: started.server.port }, `${name} listening`);
  });
}

export { listen };
