import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * Development defaults for secrets. They make a local run work out of the box and are refused
 * when NODE_ENV=production (README, Configuration).
 */
export const DEV_SECRETS = {
  // As long as ADMIN_TOKEN and ADMIN_TOKEN_PREVIOUS must be when set (16 characters or more).
  ADMIN_TOKEN: 'dev-admin-token-local',
  INTERNAL_AUTH_SECRET: 'dev-internal-auth-secret-not-for-production',
  DATA_ENCRYPTION_KEY: 'dev-data-encryption-key-not-for-production',
} as const;

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const share = (fallback: number) => z.coerce.number().gt(0).max(1).default(fallback);
/** An optional secret; empty (compose's `${VAR:-}`) counts as unset. */
const rotationSecret = z.preprocess((v) => (v === '' ? undefined : v), z.string().min(32).optional());

export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/relay'),
    // The reporting database: a logical replica of the money database's ledger (docs/reporting-database.md).
    REPORTING_DATABASE_URL: z.string().url().optional(),
    // Past this lag (the replicated heartbeat's age), reporting answers 503 with Retry-After rather than serve stale money.
    REPORTING_MAX_LAG_SECONDS: z.coerce.number().positive().default(10),
    // How often the ledger jobs' process writes the replicated heartbeat row (the lag's clock).
    REPLICATION_HEARTBEAT_MS: positiveInt(1000),
    DATABASE_POOL_MAX: positiveInt(20),
    REDIS_URL: z.string().default('redis://127.0.0.1:6379/0'),
    REDIS_KEY_PREFIX: z.string().regex(/^[a-zA-Z0-9_-]+$/).default('relay'),
    SERVICE_HOST: z.string().default('127.0.0.1'),
    // Loopback unless told otherwise: a development run (with its development admin token) is not
    // reachable from the network. Containers set 0.0.0.0 (docker-compose.yml, k8s configmap).
    GATEWAY_HOST: z.string().default('127.0.0.1'),
    GATEWAY_PORT: port(8080),
    LAUNCHER_PORT: port(8081),
    WALLET_PORT: port(8082),
    REPORTING_PORT: port(8083),
    NOTIFIER_PORT: port(8084),
    ADMIN_PORT: port(8085),
    BACKOFFICE_PORT: port(8087),
    LAUNCHER_URL: z.string().url().optional(),
    WALLET_URL: z.string().url().optional(),
    REPORTING_URL: z.string().url().optional(),
    NOTIFIER_URL: z.string().url().optional(),
    ADMIN_URL: z.string().url().optional(),
    BACKOFFICE_URL: z.string().url().optional(),
    PUBLIC_BASE_URL: z.string().url().optional(),
    ADMIN_TOKEN: z.string().min(16).default(DEV_SECRETS.ADMIN_TOKEN),
    INTERNAL_AUTH_SECRET: z.string().min(32).default(DEV_SECRETS.INTERNAL_AUTH_SECRET),
    DATA_ENCRYPTION_KEY: z.string().min(32).default(DEV_SECRETS.DATA_ENCRYPTION_KEY),
    // Rotation without downtime (docs/runbooks/rotating-secrets.md): accepted, never used to sign or seal.
    INTERNAL_AUTH_SECRET_VERIFY_ONLY: rotationSecret,
    // As strong as the token it was: a one-character previous token would be a way in during a rotation.
    ADMIN_TOKEN_PREVIOUS: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16).optional()),
    // Prometheus's credential for the gateway's /metrics: that and nothing else (the admin token is
    // accepted there too). Unset: only the admin token reads it.
    METRICS_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16).optional()),
    DATA_ENCRYPTION_KEY_DECRYPT_ONLY: rotationSecret,
    SESSION_TTL_SECONDS: positiveInt(86400),
    SESSION_ARCHIVE_DAYS: positiveInt(60),
    IN_FLIGHT_WINDOW_SECONDS: positiveInt(60),
    CASINO_TIMEOUT_MS: positiveInt(10000),
    RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(0).default(5000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SHUTDOWN_TIMEOUT_MS: positiveInt(15000),
    NOTIFIER_WORKER_CONCURRENCY: positiveInt(50),
    // The public edge (docs/deploying.md, "Edge limits").
    GATEWAY_HEADERS_TIMEOUT_MS: positiveInt(10000),
    GATEWAY_BODY_TIMEOUT_MS: positiveInt(10000),
    GATEWAY_UPSTREAM_MAX_SOCKETS: positiveInt(256),
    GATEWAY_TENANT_SHARE: share(0.5),
    GATEWAY_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).default(60),
    GATEWAY_TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).default(0),
    DATABASE_POOL_TENANT_SHARE: share(0.5),
    // Casino wallets on loopback, private or link-local addresses: refused in production unless named.
    CASINO_PRIVATE_ADDRESS_ALLOWLIST: z.string().default(''),
    /** Back-office sign-in sessions: idle time-out and absolute lifetime. */
    BACKOFFICE_SESSION_IDLE_SECONDS: positiveInt(1800),
    BACKOFFICE_SESSION_MAX_SECONDS: positiveInt(43200),
    // Reconciliation queue: a PENDING transaction, or a round still OPEN, older than this needs a person.
    RECONCILIATION_PENDING_SECONDS: positiveInt(300),
    RECONCILIATION_OPEN_ROUND_SECONDS: positiveInt(86400),
    /** Local runs over plain http: the session cookie without `Secure` (always so in development and test). */
    BACKOFFICE_INSECURE_COOKIE: z.enum(['0', '1', 'false', 'true']).default('0').transform((v) => v === '1' || v === 'true'),
    /** Failed sign-in attempts allowed per account and per client address before a lock-out of SIGNIN_LOCKOUT_SECONDS. */
    SIGNIN_MAX_FAILURES_PER_ACCOUNT: positiveInt(5),
    SIGNIN_MAX_FAILURES_PER_ADDRESS: positiveInt(30),
    SIGNIN_LOCKOUT_SECONDS: positiveInt(900),
    // The ledger's lifecycle (docs/ledger.md): jobs of the admin service.
    /** A repeated transactionId or roundId is recognised for at least this long after its first attempt. */
    IDEMPOTENCY_RETENTION_DAYS: positiveInt(120),
    LEDGER_PARTITIONS_AHEAD_MONTHS: positiveInt(3),
    LEDGER_PARTITIONS_INTERVAL_SECONDS: positiveInt(3600),
    /** Whole months older than this are archived and dropped; unset keeps everything. */
    LEDGER_RETENTION_MONTHS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().positive().optional()),
    LEDGER_RETENTION_INTERVAL_SECONDS: positiveInt(86400),
    /**
     * The reporting database's own retention: whole months older than this are dropped there (their
     * counts stay, so reports still cover them; the lists do not). Unset keeps everything.
     */
    REPORTING_RETENTION_MONTHS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().positive().optional()),
    LEDGER_ARCHIVE_DIR: z.string().min(1).default('./var/ledger-archive'),
    LEDGER_ARCHIVE_S3_BUCKET: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
    LEDGER_ARCHIVE_S3_ENDPOINT: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
    LEDGER_ARCHIVE_S3_REGION: z.string().default('us-east-1'),
    LEDGER_ARCHIVE_S3_PREFIX: z.string().default(''),
  })
  .superRefine((env, ctx) => {
    // A PENDING attempt may only be taken over once its own casino call can no longer be running.
    if (env.IN_FLIGHT_WINDOW_SECONDS * 1000 <= env.CASINO_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['IN_FLIGHT_WINDOW_SECONDS'], message: 'must be longer than CASINO_TIMEOUT_MS' });
    }
    if (env.BACKOFFICE_SESSION_IDLE_SECONDS > env.BACKOFFICE_SESSION_MAX_SECONDS) {
      ctx.addIssue({ code: 'custom', path: ['BACKOFFICE_SESSION_IDLE_SECONDS'], message: 'must not be longer than BACKOFFICE_SESSION_MAX_SECONDS' });
    }
    // The reporting database drops a month only once no money call can change its rows: the money
    // database archived it a month before (an open round may settle at any age until then: an update
    // of a row the replica dropped is skipped, and its counts would stay wrong), and past the
    // idempotency window (a repeat may take a record over).
    if (env.REPORTING_RETENTION_MONTHS !== undefined) {
      if (env.LEDGER_RETENTION_MONTHS === undefined || env.REPORTING_RETENTION_MONTHS <= env.LEDGER_RETENTION_MONTHS) {
        ctx.addIssue({ code: 'custom', path: ['REPORTING_RETENTION_MONTHS'], message: 'must be longer than LEDGER_RETENTION_MONTHS, which must be set' });
      }
      if (env.REPORTING_RETENTION_MONTHS * 28 <= env.IDEMPOTENCY_RETENTION_DAYS) {
        ctx.addIssue({ code: 'custom', path: ['REPORTING_RETENTION_MONTHS'], message: 'must cover IDEMPOTENCY_RETENTION_DAYS (a repeat may still change a row that old)' });
      }
    }
    if (env.NODE_ENV !== 'production') return;
    for (const [name, value] of Object.entries(DEV_SECRETS)) {
      if (env[name as keyof typeof DEV_SECRETS] === value) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} must be set in production` });
      }
    }
  });

export type RawConfig = z.infer<typeof configSchema>;

export interface Config extends RawConfig {
  /** REPORTING_DATABASE_URL, or the money database's name plus `_reporting` on the same server. */
  reportingDatabaseUrl: string;
  serviceUrls: Record<ServiceName, string>;
}

export type ServiceName = 'gateway' | 'launcher' | 'wallet' | 'reporting' | 'notifier' | 'admin' | 'backoffice';

export type SecretName = keyof typeof DEV_SECRETS;
export type ProcessName = ServiceName | 'notifier-worker';

/**
 * The secrets each process uses. In production a pod is handed these alone (k8s/base), so a
 * process that is broken into does not hold the keys of the others: the gateway never holds the
 * data encryption key, the worker neither the admin token nor the identity secret.
 */
export const PROCESS_SECRETS: Record<ProcessName, readonly SecretName[]> = {
  gateway: ['ADMIN_TOKEN', 'INTERNAL_AUTH_SECRET'],
  launcher: ['INTERNAL_AUTH_SECRET', 'DATA_ENCRYPTION_KEY'],
  wallet: ['INTERNAL_AUTH_SECRET', 'DATA_ENCRYPTION_KEY'],
  reporting: ['INTERNAL_AUTH_SECRET'],
  notifier: ['INTERNAL_AUTH_SECRET', 'DATA_ENCRYPTION_KEY'],
  'notifier-worker': ['DATA_ENCRYPTION_KEY'],
  admin: ['INTERNAL_AUTH_SECRET', 'DATA_ENCRYPTION_KEY'],
  // Verifies the gateway's identity; seals the operators' TOTP secrets.
  backoffice: ['INTERNAL_AUTH_SECRET', 'DATA_ENCRYPTION_KEY'],
};

export class ConfigError extends Error {}

/**
 * A production process given none of a secret it does not use gets a random value for it, never
 * the development default: whatever might still reach for it fails closed (an admin token nobody
 * knows, an identity no service accepts, a key that opens nothing).
 */
function withUnusedSecretsSealed(env: NodeJS.ProcessEnv, processName: ProcessName): NodeJS.ProcessEnv {
  if (env.NODE_ENV !== 'production') return env;
  const filled = { ...env };
  for (const name of Object.keys(DEV_SECRETS) as SecretName[]) {
    if (!PROCESS_SECRETS[processName].includes(name) && !filled[name]) filled[name] = `unused-${randomBytes(32).toString('hex')}`;
  }
  return filled;
}

/**
 * Parses the environment once at start; a bad value fails fast with every problem named. Given
 * the process, production requires only the secrets that process uses (PROCESS_SECRETS).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: { process?: ProcessName } = {}): Config {
  const parsed = configSchema.safeParse(options.process ? withUnusedSecretsSealed(env, options.process) : env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const raw = parsed.data;
  const local = (p: number) => `http://${raw.SERVICE_HOST}:${p}`;
  return {
    ...raw,
    reportingDatabaseUrl: raw.REPORTING_DATABASE_URL ?? defaultReportingUrl(raw.DATABASE_URL),
    serviceUrls: {
      gateway: raw.PUBLIC_BASE_URL ?? `http://127.0.0.1:${raw.GATEWAY_PORT}`,
      launcher: raw.LAUNCHER_URL ?? local(raw.LAUNCHER_PORT),
      wallet: raw.WALLET_URL ?? local(raw.WALLET_PORT),
      reporting: raw.REPORTING_URL ?? local(raw.REPORTING_PORT),
      notifier: raw.NOTIFIER_URL ?? local(raw.NOTIFIER_PORT),
      admin: raw.ADMIN_URL ?? local(raw.ADMIN_PORT),
      backoffice: raw.BACKOFFICE_URL ?? local(raw.BACKOFFICE_PORT),
    },
  };
}

/** The money database's URL with its database name followed by `_reporting` (CONTRACTS 1). */
export function defaultReportingUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `${url.pathname.replace(/\/$/, '')}_reporting`;
  return url.toString();
}
