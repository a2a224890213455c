import type { GameWorld, Player } from '../../game';
import { betBody, winBody } from '../../../services/wallet/test/money-support';

/**
 * Every route of the platform in one table, so the shared auth, isolation and secret checks run
 * against each of them and a new route cannot be forgotten by one of the suites.
 */
export interface Bet {
  sessionId: string;
  roundId: string;
  transactionId: string;
  amount: number;
}

/** A game provider's world with records on every resource: a player, a settled and an open round. */
export interface Target {
  world: GameWorld;
  player: Player;
  settledBet: Bet;
  settlingWin: { transactionId: string };
  openBet: Bet;
}

export type RouteKind = 'session' | 'round-ended' | 'list' | 'detail' | 'casino-ids' | 'catalog';

export interface GameRoute {
  name: string;
  kind: RouteKind;
  method: 'GET' | 'POST';
  style: 'wallet' | 'envelope';
  /** The path (and query) naming the target's records. */
  path(t: Target): string;
  body?(t: Target): Record<string, unknown>;
}

export const GAME_ROUTES: GameRoute[] = [
  { name: 'session validation', kind: 'session', method: 'GET', style: 'envelope', path: (t) => `/api/v1/sessions/${t.player.sessionId}?gameId=${t.world.gameId}` },
  { name: 'balance read', kind: 'session', method: 'GET', style: 'wallet', path: (t) => `/api/account?sessionId=${t.player.sessionId}&currency=${t.player.currency}` },
  { name: 'free-round awards', kind: 'session', method: 'GET', style: 'envelope', path: (t) => `/api/v1/sessions/${t.player.sessionId}/free-rounds` },
  { name: 'cash-out', kind: 'session', method: 'POST', style: 'wallet', path: () => '/api/balance/cash-out', body: (t) => betBody(t.world, t.player, { amount: 1 }) },
  { name: 'cash-in', kind: 'session', method: 'POST', style: 'wallet', path: () => '/api/balance/cash-in', body: (t) => winBody(t.world, t.player, t.openBet, { amount: 1 }) },
  { name: 'cash-in retry', kind: 'session', method: 'POST', style: 'wallet', path: () => '/api/balance/cash-in/retry', body: (t) => winBody(t.world, t.player, t.openBet, { amount: 1 }) },
  { name: 'round-ended', kind: 'round-ended', method: 'POST', style: 'wallet', path: () => '/api/round-ended', body: (t) => ({ roundId: t.openBet.roundId, providerIds: [t.world.providerId] }) },
  { name: 'rounds list', kind: 'list', method: 'GET', style: 'envelope', path: (t) => `/api/v1/rounds?providerId=${t.world.providerId}&playerId=${t.player.playerId}` },
  { name: 'round detail', kind: 'detail', method: 'GET', style: 'envelope', path: (t) => `/api/v1/rounds/${t.world.providerId}/${t.settledBet.roundId}` },
  { name: 'transactions list', kind: 'list', method: 'GET', style: 'envelope', path: (t) => `/api/v1/transactions?providerId=${t.world.providerId}&roundId=${t.settledBet.roundId}` },
  { name: 'transaction detail', kind: 'detail', method: 'GET', style: 'envelope', path: (t) => `/api/v1/transactions/${t.world.providerId}/${t.settledBet.transactionId}` },
  { name: 'casino ids', kind: 'casino-ids', method: 'GET', style: 'envelope', path: () => '/api/v1/providers/ids' },
  { name: 'casino catalog', kind: 'catalog', method: 'GET', style: 'envelope', path: (t) => `/api/v1/provider-catalog?gameId=${t.world.gameId}` },
];

export interface AdminRoute {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  path(t: Target): string;
  body?: Record<string, unknown>;
}

const currency = { minBet: 1, maxBet: 100, defaultBet: 5, betSuggestions: [1, 5], maxWin: 1000 };

export const ADMIN_ROUTES: AdminRoute[] = [
  { method: 'GET', path: () => 'casinos' },
  { method: 'GET', path: (t) => `casinos/${t.world.providerId}` },
  { method: 'PUT', path: (t) => `casinos/${t.world.providerId}`, body: { name: 'Taken over', walletUrl: 'http://127.0.0.1:9/wallet' } },
  { method: 'DELETE', path: (t) => `casinos/${t.world.providerId}` },
  { method: 'GET', path: (t) => `game-providers/${t.world.groupId}` },
  { method: 'PUT', path: (t) => `game-providers/${t.world.groupId}`, body: { name: 'Taken over', status: 'INACTIVE' } },
  { method: 'POST', path: (t) => `game-providers/${t.world.groupId}/tokens` },
  { method: 'DELETE', path: (t) => `game-providers/${t.world.groupId}/tokens/${t.world.tokenId}` },
  { method: 'PUT', path: (t) => `game-providers/${t.world.groupId}/launch-encryption-key`, body: { publicKeyPem: 'x' } },
  { method: 'DELETE', path: (t) => `game-providers/${t.world.groupId}/launch-encryption-key` },
  { method: 'GET', path: (t) => `games/${t.world.gameId}` },
  { method: 'PUT', path: (t) => `games/${t.world.gameId}`, body: { name: 'Taken over', groupId: 'someone-else', frontendUrl: 'https://evil.example/' } },
  { method: 'GET', path: (t) => `games/${t.world.gameId}/config-template` },
  { method: 'PUT', path: (t) => `games/${t.world.gameId}/config-template`, body: { properties: [] } },
  { method: 'GET', path: (t) => `casinos/${t.world.providerId}/games/${t.world.gameId}/config` },
  { method: 'PUT', path: (t) => `casinos/${t.world.providerId}/games/${t.world.gameId}/config`, body: { values: {} } },
  { method: 'GET', path: (t) => `casinos/${t.world.providerId}/games/${t.world.gameId}/currencies` },
  { method: 'PUT', path: (t) => `casinos/${t.world.providerId}/games/${t.world.gameId}/currencies/EUR`, body: currency },
  { method: 'DELETE', path: (t) => `casinos/${t.world.providerId}/games/${t.world.gameId}/currencies/EUR` },
];

/** Builds a target: a player with one settled round (bet 10, win 20) and one open round (bet 5). */
export async function makeTarget(world: GameWorld): Promise<Target> {
  const player = await world.launchPlayer({ balance: 500 });
  const settledBet = betBody(world, player, { amount: 10 });
  const openBet = betBody(world, player, { amount: 5 });
  const settlingWin = winBody(world, player, settledBet, { amount: 20 });
  for (const [path, body] of [
    ['/api/balance/cash-out', settledBet],
    ['/api/balance/cash-in', settlingWin],
    ['/api/balance/cash-out', openBet],
  ] as const) {
    const res = await world.call('POST', path, body);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${res.text}`);
  }
  return { world, player, settledBet, settlingWin, openBet };
}

/** The currency config of a game at a casino, through the admin API (puts both in the catalog). */
export const CURRENCY_CONFIG = currency;
