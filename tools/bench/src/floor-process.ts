import type http from 'node:http';
import express from 'express';

/** What both stand-in processes share: their settings from the environment, and how they listen and stop. */
export function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/** Listens on FLOOR_PORT (loopback), keeps client connections open as the services do, exits on SIGTERM. */
export function serve(server: http.Server): void {
  server.keepAliveTimeout = 65_000;
  server.listen(Number(required('FLOOR_PORT')), '127.0.0.1');
  process.on('SIGTERM', () => process.exit(0));
}

/** An express app set as the services set theirs (no X-Powered-By, no ETag), with the readiness probe. */
export function expressApp(): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/readyz', (_req, res) => {
    res.status(200).end();
  });
  return app;
}
