import { z } from 'zod';
import { ConfigError } from '@relay/shared';
import { WORKER_DEFAULTS, type NotifierWorkerOptions } from '../worker-start';

/** The worker's own tuning variables, on top of the platform's config (all optional). */
const settingsSchema = z.object({
  NOTIFIER_LOCK_DURATION_MS: z.coerce.number().int().min(500).default(WORKER_DEFAULTS.lockDurationMs),
  NOTIFIER_STALLED_INTERVAL_MS: z.coerce.number().int().min(100).default(WORKER_DEFAULTS.stalledIntervalMs),
  NOTIFIER_JOB_MAX_AGE_MS: z.coerce.number().int().min(1000).default(WORKER_DEFAULTS.maxJobAgeMs),
});

export function loadWorkerSettings(env: NodeJS.ProcessEnv = process.env): NotifierWorkerOptions {
  const parsed = settingsSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(`invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return {
    lockDurationMs: parsed.data.NOTIFIER_LOCK_DURATION_MS,
    stalledIntervalMs: parsed.data.NOTIFIER_STALLED_INTERVAL_MS,
    maxJobAgeMs: parsed.data.NOTIFIER_JOB_MAX_AGE_MS,
  };
}

const monitorSchema = z.object({
  NOTIFIER_WORKER_PORT: z
    .union([z.literal('off'), z.coerce.number().int().min(1).max(65535)])
    .default(8086),
});

/** NOTIFIER_WORKER_PORT: the worker's health and metrics port (default 8086), or `off` for none. */
export function loadWorkerMonitorPort(env: NodeJS.ProcessEnv = process.env): number | null {
  const parsed = monitorSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(`invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data.NOTIFIER_WORKER_PORT === 'off' ? null : parsed.data.NOTIFIER_WORKER_PORT;
}
