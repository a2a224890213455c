import { readFile } from 'node:fs/promises';
import { z } from 'zod';

/**
 * The kit's config file. Strict: a misspelt key ("fundded") is a bad config, not a silently
 * skipped check. Secrets in it (walletSecret, walletTokens) are never printed.
 */
const player = z.strictObject({ playerId: z.string().min(1), walletToken: z.string().min(1) });

export const configSchema = z.strictObject({
  walletUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  walletSecret: z.string().min(1),
  providerId: z.string().min(1),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter code such as EUR'),
  players: z.strictObject({ funded: player, poor: player.optional(), expired: player.optional() }),
  /** The gameId sent in every body; any game the casino accepts. */
  gameId: z.number().int().nonnegative().default(1),
  /** The relay's CASINO_TIMEOUT_MS: longer than this is an outage for the relay. */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** The advisory latency target: p95 of each operation at or below it. */
  latencyTargetMs: z.number().int().min(1).max(120_000).default(300),
});

export type CertifyConfig = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type PlayerRole = keyof CertifyConfig['players'];

/** A config the kit cannot run with, or a wallet it cannot reach: exit status 2. */
export class SetupError extends Error {}

export function parseConfig(value: unknown): CertifyConfig {
  const parsed = configSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`);
  throw new SetupError(`bad config: ${problems.join('; ')}`);
}

export async function loadConfig(file: string): Promise<CertifyConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new SetupError(`cannot read the config file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SetupError(`the config file ${file} is not JSON`);
  }
  return parseConfig(value);
}
