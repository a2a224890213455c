import { z } from 'zod';

/**
 * The demo game backend's environment, parsed once at start. The provider token lives only here,
 * in the backend: the page never receives it (spec, Authentication 3).
 */
const schema = z.object({
  /** The relay's public address (its gateway). */
  RELAY_URL: z.url({ protocol: /^https?$/ }),
  RELAY_PROVIDER_TOKEN: z.string().min(1),
  GAME_ID: z.coerce.number().int().positive(),
  DEMO_GAME_PORT: z.coerce.number().int().min(0).max(65535).default(8091),
  DEMO_GAME_HOST: z.string().default('127.0.0.1'),
  /** Test-only: lets /demo/bet take a forced outcome, so a browser test can win and lose on purpose. */
  DEMO_ALLOW_FORCED_OUTCOME: z.enum(['0', '1', '']).default('0'),
});

export interface DemoGameConfig {
  relayUrl: string;
  providerToken: string;
  gameId: number;
  port: number;
  host: string;
  allowForcedOutcome: boolean;
}

export function loadDemoGameConfig(env: NodeJS.ProcessEnv = process.env): DemoGameConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid demo game configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    relayUrl: e.RELAY_URL.replace(/\/+$/, ''),
    providerToken: e.RELAY_PROVIDER_TOKEN,
    gameId: e.GAME_ID,
    port: e.DEMO_GAME_PORT,
    host: e.DEMO_GAME_HOST,
    allowForcedOutcome: e.DEMO_ALLOW_FORCED_OUTCOME === '1',
  };
}
