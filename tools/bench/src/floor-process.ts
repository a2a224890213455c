import type http from 'node:http';

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
