import { listen, Registry, SessionStore, type Runtime, type RunningServer } from '@relay/shared';
import { createLauncherApp } from './app';

const PURGE_INTERVAL_MS = 60 * 60 * 1000;

export async function startLauncher(rt: Runtime, port: number): Promise<{ server: RunningServer; close: () => Promise<void> }> {
  const sessions = new SessionStore(rt.db.primary, rt.redis, rt.config.REDIS_KEY_PREFIX, rt.config.SESSION_ARCHIVE_DAYS);
  const deps = {
    db: rt.db.primary,
    registry: new Registry(rt.db.primary, rt.secrets, rt.bus),
    sessions,
    secrets: rt.secrets,
    sessionTtlSeconds: rt.config.SESSION_TTL_SECONDS,
  };
  const server = await listen(createLauncherApp(rt, deps), port, rt.config.SERVICE_HOST);

  // Scheduled purge of sessions past the archive window and of spent launch-token ids.
  const purge = async () => {
    try {
      const sessionsPurged = await sessions.purgeExpiredArchive();
      const jtis = await rt.db.primary('launch_token_uses').where('expires_at', '<', new Date()).del();
      if (sessionsPurged || jtis) rt.logger.info({ sessionsPurged, launchTokenIdsPurged: jtis }, 'archive purge');
    } catch (err) {
      rt.logger.warn({ err }, 'archive purge failed; next run retries');
    }
  };
  const timer = setInterval(() => void purge(), PURGE_INTERVAL_MS);
  timer.unref();
  return { server, close: async () => clearInterval(timer) };
}

// The request schema and routes, from which the API reference (tools/openapi) is generated.
export { launchQuery, launchRoutes } from './routes/launch';
