import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { createLaunchToken, type LaunchTokenOptions } from '@relay/casino-sandbox';
import type { GameWorld } from '../../../test/game';
import { http, uniqueId, type TestPlatform } from '../../../test/platform';

/**
 * What a casino does to send a player in (docs/integrating-a-casino.md), for the launcher tests: a launch token of
 * the world's casino, the launch query, and GET /launch through the gateway with the query sent
 * exactly as written (fetch does not re-encode an already encoded query).
 */
export type LaunchResult = Awaited<ReturnType<typeof http>>;

/** What a browser sends: it prefers HTML. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

export interface CasinoPlayer {
  playerId: string;
  walletToken: string;
  token: string;
}

/** A player known to the sandbox casino, with a launch token for them; `over` replaces any claim. */
export async function casinoPlayer(g: GameWorld, over: Partial<LaunchTokenOptions> = {}): Promise<CasinoPlayer> {
  const playerId = over.playerId ?? uniqueId('player');
  const walletToken = over.walletToken ?? uniqueId('wallet-token');
  g.sandbox.addPlayer({ providerId: g.providerId, playerId, walletToken, balance: 100 });
  const token = await createLaunchToken({ launchKey: g.launchKey, providerId: g.providerId, ...over, playerId, walletToken });
  return { playerId, walletToken, token };
}

/** base64url of 32 random bytes: a launch key nobody registered. */
export function strangerLaunchKey(): string {
  return randomBytes(32).toString('base64url');
}

/** The launch parameters of the world's game, in the order a casino sends them. */
export function launchQuery(g: GameWorld, token: string, over: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    token,
    providerId: g.providerId,
    gameId: String(g.gameId),
    currency: 'EUR',
    language: 'en',
    ...over,
  };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  return query.toString();
}

/** GET /launch?{rawQuery} through the gateway; `rawQuery` goes on the wire as written. */
export function launch(p: TestPlatform, rawQuery: string, headers: Record<string, string> = {}): Promise<LaunchResult> {
  return http('GET', `${p.baseUrl}/launch?${rawQuery}`, { headers });
}

/** The Location of a 302, or a failed test naming what came back instead. */
export function redirectOf(res: LaunchResult): URL {
  if (res.status !== 302) throw new Error(`expected a 302, got ${res.status}: ${res.text}`);
  return new URL(res.headers.get('location') as string);
}

/** The raw query string of a Location, without '?'. */
export function rawQueryOf(location: URL): string {
  return location.search.replace(/^\?/, '');
}

/** A session id from a successful launch. */
export function sessionIdOf(res: LaunchResult): string {
  const sessionId = redirectOf(res).searchParams.get('sessionId');
  if (!sessionId) throw new Error('the redirect carries no sessionId');
  return sessionId;
}

/** A local port nothing listens on (bound, then released): a casino wallet that is down. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
