import { http, uniqueGameId, uniqueId, type TestPlatform } from './platform';

/**
 * Provisioning for integration tests, done the way an operator does it: through the platform admin
 * API on the gateway (docs/api/admin.json). Every call creates fresh ids, so test files can share
 * one database without seeing each other's records.
 */

export type HttpResult = Awaited<ReturnType<typeof http>>;
export type Status = 'ACTIVE' | 'INACTIVE';

export function adminPut(p: TestPlatform, path: string, body: unknown): Promise<HttpResult> {
  return http('PUT', adminUrl(p, path), { token: p.adminToken, body });
}

export function adminPost(p: TestPlatform, path: string, body?: unknown): Promise<HttpResult> {
  return http('POST', adminUrl(p, path), { token: p.adminToken, body });
}

export function adminGet(p: TestPlatform, path: string): Promise<HttpResult> {
  return http('GET', adminUrl(p, path), { token: p.adminToken });
}

export function adminDelete(p: TestPlatform, path: string): Promise<HttpResult> {
  return http('DELETE', adminUrl(p, path), { token: p.adminToken });
}

/** `path` is relative to /admin/v1 (a leading slash is optional). */
function adminUrl(p: TestPlatform, path: string): string {
  return `${p.baseUrl}/admin/v1/${path.replace(/^\/+/, '')}`;
}

export interface ProvisionOptions {
  walletUrl?: string;
  casinoStatus?: Status;
  groupStatus?: Status;
  gameStatus?: Status;
  frontendUrl?: string;
  refundOnCreditFail?: boolean;
  creditOnDisconnect?: boolean;
}

export interface World {
  /** The game provider. */
  groupId: string;
  /** Bearer token of the game provider (shown once by the admin API). */
  providerToken: string;
  tokenId: string;
  gameId: number;
  frontendUrl: string;
  /** The casino. */
  providerId: string;
  walletUrl: string;
  walletSecret: string;
  /** base64url of the casino's 32-byte launch key (docs/integrating-a-casino.md). */
  launchKey: string;
}

export const DEFAULT_FRONTEND_URL = 'https://game.example.com/play?skin=dark';
/** Nothing listens on port 9 (discard): wallet calls fail fast with a refused connection. */
export const DEFAULT_WALLET_URL = 'http://127.0.0.1:9/wallet';

/** A game provider with one token and one game, and a casino: the smallest world a game route needs. */
export async function provisionWorld(p: TestPlatform, opts: ProvisionOptions = {}): Promise<World> {
  const groupId = uniqueId('grp');
  const providerId = uniqueId('cas');
  const gameId = uniqueGameId();
  const frontendUrl = opts.frontendUrl ?? DEFAULT_FRONTEND_URL;
  const walletUrl = opts.walletUrl ?? DEFAULT_WALLET_URL;

  expectOk(
    await adminPut(p, `game-providers/${groupId}`, { name: `Provider ${groupId}`, status: opts.groupStatus ?? 'ACTIVE' }),
    'create game provider',
  );
  const token = expectOk(await adminPost(p, `game-providers/${groupId}/tokens`), 'create provider token', 201);
  expectOk(
    await adminPut(p, `games/${gameId}`, {
      name: `Game ${gameId}`,
      groupId,
      frontendUrl,
      status: opts.gameStatus ?? 'ACTIVE',
    }),
    'create game',
  );
  const casino = expectOk(
    await adminPut(p, `casinos/${providerId}`, {
      name: `Casino ${providerId}`,
      walletUrl,
      status: opts.casinoStatus ?? 'ACTIVE',
      refundOnCreditFail: opts.refundOnCreditFail ?? false,
      creditOnDisconnect: opts.creditOnDisconnect ?? false,
    }),
    'create casino',
  );

  return {
    groupId,
    providerToken: String(token.token),
    tokenId: String(token.tokenId),
    gameId,
    frontendUrl,
    providerId,
    walletUrl,
    walletSecret: String(casino.walletSecret),
    launchKey: String(casino.launchKey),
  };
}

/** Unwraps `data` of a successful envelope, or fails the test with the whole answer. */
function expectOk(res: HttpResult, what: string, status = 200): Record<string, unknown> {
  if (res.status !== status || !res.body || typeof res.body.data !== 'object' || res.body.data === null) {
    throw new Error(`provisionWorld: ${what} answered ${res.status}: ${res.text}`);
  }
  return res.body.data as Record<string, unknown>;
}
