import { createLogger, runMain } from '@relay/shared';
import { loadDemoGameConfig } from './config';
import { startDemoGame } from './index';

/**
 * `node tools/demo-game/dist/main.js`: the demo game backend and its page. RELAY_URL,
 * RELAY_PROVIDER_TOKEN and GAME_ID are required; DEMO_GAME_PORT (8091), DEMO_GAME_HOST (127.0.0.1).
 */
const logger = createLogger({ service: 'demo-game', level: process.env.LOG_LEVEL });

void runMain(logger, 10000, async (shutdown) => {
  const game = await startDemoGame(loadDemoGameConfig(), logger);
  shutdown.register('http', () => game.close());
  logger.info({ url: game.url }, 'demo game listening');
});
