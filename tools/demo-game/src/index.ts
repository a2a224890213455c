import { createLogger, listen, type Logger, type RunningServer } from '@relay/shared';
import { createDemoGameApp } from './app';
import type { DemoGameConfig } from './config';
import { RelayClient } from './relay';
import { SessionBook } from './sessions';
import { Settlements } from './settlements';

export { loadDemoGameConfig, type DemoGameConfig } from './config';
export { multiplierFor, playDice, CHANCES, type Chance } from './dice';

export interface DemoGame {
  /** The game page: register it as the game's frontendUrl. */
  url: string;
  server: RunningServer;
  close(): Promise<void>;
}

/** Starts the demo game backend and page on `config.port` (0: an ephemeral port). */
export async function startDemoGame(config: DemoGameConfig, logger: Logger = createLogger({ service: 'demo-game', level: process.env.LOG_LEVEL })): Promise<DemoGame> {
  const relay = new RelayClient(config.relayUrl, config.providerToken);
  const settlements = new Settlements(relay, logger);
  const app = createDemoGameApp({
    relay,
    settlements,
    sessions: new SessionBook(relay, config.gameId),
    gameId: config.gameId,
    allowForcedOutcome: config.allowForcedOutcome,
    logger,
  });
  const server = await listen(app, config.port, config.host);
  return {
    url: `${server.url}/`,
    server,
    close: async () => {
      await server.close(5000);
      settlements.close();
    },
  };
}
