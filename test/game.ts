import { createLaunchToken, startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { http, uniqueId, type TestPlatform } from './platform';
import { provisionWorld, type ProvisionOptions, type World } from './provision';

/**
 * A casino (the sandbox, checking signatures with the casino's wallet secret), a provisioned game
 * provider and game, and players launched through the gateway: what a game backend sees.
 */
export interface GameWorld extends World {
  sandbox: CasinoSandbox;
  /** Adds a player at the casino and launches them; returns the sessionId of the redirect. */
  launchPlayer(opts?: { balance?: number; currency?: string; language?: string; playerId?: string; username?: string }): Promise<Player>;
  call(method: string, path: string, body?: unknown): ReturnType<typeof http>;
}

export interface Player {
  playerId: string;
  walletToken: string;
  sessionId: string;
  currency: string;
}

export async function startGameWorld(p: TestPlatform, opts: ProvisionOptions & { sandbox?: CasinoSandbox } = {}): Promise<GameWorld> {
  const sandbox = opts.sandbox ?? (await startCasinoSandbox());
  const world = await provisionWorld(p, { ...opts, walletUrl: opts.walletUrl ?? sandbox.walletUrl });
  sandbox.setSecret(world.providerId, world.walletSecret);
  const call = (method: string, path: string, body?: unknown) => http(method, `${p.baseUrl}${path}`, { token: world.providerToken, body });
  return {
    ...world,
    sandbox,
    call,
    launchPlayer: async (o = {}) => {
      const playerId = o.playerId ?? uniqueId('player');
      const walletToken = uniqueId('wallet-token');
      const currency = o.currency ?? 'EUR';
      sandbox.addPlayer({ providerId: world.providerId, playerId, walletToken, balance: o.balance ?? 100, username: o.username });
      const token = await createLaunchToken({ launchKey: world.launchKey, providerId: world.providerId, playerId, walletToken });
      const query = new URLSearchParams({ token, providerId: world.providerId, gameId: String(world.gameId), currency, language: o.language ?? 'en' });
      const res = await http('GET', `${p.baseUrl}/launch?${query}`);
      if (res.status !== 302) throw new Error(`launch answered ${res.status}: ${res.text}`);
      const sessionId = new URL(res.headers.get('location')!).searchParams.get('sessionId');
      if (!sessionId) throw new Error('launch redirect carries no sessionId');
      return { playerId, walletToken, sessionId, currency };
    },
  };
}
