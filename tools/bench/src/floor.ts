import { randomBytes } from 'node:crypto';
import { hashToken } from '@relay/shared';
import { HOT_PATH_NODE_ARGS } from '@relay/platform';
import { freePort, startProcess, stopProcess, waitFor } from './harness';

/** What the stand-ins need to know of the casino, the game provider and the game. */
export interface FloorWorld {
  providerId: string;
  groupId: string;
  gameId: number;
  walletSecret: string;
  providerToken: string;
}

export interface FloorPlayer {
  playerId: string;
  walletToken: string;
  sessionId: string;
}

export interface Floor {
  /** The stand-in gateway's origin: the same routes and bearer token as the gateway. */
  url: string;
  /** Process labels for the CPU table. */
  labels: Record<number, string>;
  stop: () => Promise<void>;
}

/**
 * Starts floor-gateway.ts and floor-wallet.ts on the given database (migrated) and casino: the I/O
 * the gateway and the wallet must do per money call, with no framework, checks or logs, and the
 * same Node flags as the services they stand in for.
 */
/** The gateway's per-provider limit, for the stand-in to count each call as the gateway does (Redis). */
export interface FloorRateLimit {
  redisUrl: string;
  keyPrefix: string;
  perSecond: number;
}

/**
 * `bare`: plain Node.js servers. `express`: the same work on the frameworks the architecture fixes
 * (express in both, http-proxy-middleware in the gateway), to tell their cost from the relay's own.
 */
export const FLOOR_FRAMEWORKS = ['bare', 'express'] as const;
export type FloorFramework = (typeof FLOOR_FRAMEWORKS)[number];

/** The CPU table's label of a stand-in process: its framework, then the process it stands in for. */
export function floorLabel(framework: FloorFramework, role: 'gateway' | 'wallet'): string {
  return `${framework} ${role}`;
}

export async function startFloor(dbUrl: string, casinoOrigin: string, world: FloorWorld, players: FloorPlayer[], rateLimit?: FloorRateLimit, framework: FloorFramework = 'bare'): Promise<Floor> {
  const [gatewayPort, walletPort] = await Promise.all([freePort(), freePort()]);
  const secret = randomBytes(24).toString('base64url');
  // The relay's flags for its hot path, and RELAY_NODE_ARGS as its processes get them (a profile of both sides).
  const nodeArgs = [...HOT_PATH_NODE_ARGS, ...(process.env.RELAY_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const wallet = startProcess('tools/bench/dist/floor-wallet.js', {
    FLOOR_FRAMEWORK: framework,
    FLOOR_PORT: String(walletPort),
    DATABASE_URL: dbUrl,
    INTERNAL_AUTH_SECRET: secret,
    FLOOR_WORLD: JSON.stringify({
      providerId: world.providerId,
      groupId: world.groupId,
      gameId: world.gameId,
      walletSecret: world.walletSecret,
      casinoOrigin,
      sessions: Object.fromEntries(players.map((p) => [p.sessionId, { playerId: p.playerId, walletToken: p.walletToken }])),
    }),
  }, nodeArgs);
  const gateway = startProcess('tools/bench/dist/floor-gateway.js', {
    FLOOR_FRAMEWORK: framework,
    FLOOR_PORT: String(gatewayPort),
    FLOOR_UPSTREAM: `http://127.0.0.1:${walletPort}`,
    FLOOR_TOKEN_HASH: hashToken(world.providerToken),
    FLOOR_GROUP_ID: world.groupId,
    INTERNAL_AUTH_SECRET: secret,
    ...(rateLimit && rateLimit.perSecond > 0
      ? { FLOOR_REDIS_URL: rateLimit.redisUrl, FLOOR_REDIS_PREFIX: rateLimit.keyPrefix, FLOOR_RATE_LIMIT: String(rateLimit.perSecond) }
      : {}),
  }, nodeArgs);
  const stop = async () => {
    await stopProcess(gateway);
    await stopProcess(wallet);
  };
  try {
    await waitFor(`http://127.0.0.1:${walletPort}/readyz`);
    await waitFor(`http://127.0.0.1:${gatewayPort}/readyz`);
  } catch (err) {
    await stop();
    throw err;
  }
  const labels: Record<number, string> = {};
  if (gateway.pid) labels[gateway.pid] = floorLabel(framework, 'gateway');
  if (wallet.pid) labels[wallet.pid] = floorLabel(framework, 'wallet');
  return { url: `http://127.0.0.1:${gatewayPort}`, labels, stop };
}
