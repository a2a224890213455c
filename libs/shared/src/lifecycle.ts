import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';

/** A running HTTP service: tests mount it on port 0, main.ts on its configured port. */
export interface RunningServer {
  server: http.Server;
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish, then drops idle keep-alive sockets. */
  close(deadlineMs?: number): Promise<void>;
}

export interface EdgeTimeouts {
  /** A client must send its whole request head within this (slow headers). */
  headersTimeoutMs: number;
  /** ... and its whole request within this (a backstop to the gateway's own body deadline). */
  requestTimeoutMs: number;
}

export async function listen(app: Express, port: number, host = '127.0.0.1', edge?: EdgeTimeouts): Promise<RunningServer> {
  // Node enforces headersTimeout and requestTimeout only when it checks its connections, every
  // 30 s by default: a client dripping its head would be held 30 s whatever the time-out says.
  const server = edge ? http.createServer({ connectionsCheckingInterval: Math.min(1000, edge.headersTimeoutMs) }, app) : http.createServer(app);
  // Longer than the gateway's upstream agent keeps an idle socket, so the gateway never reuses a
  // socket the service is closing.
  server.keepAliveTimeout = 65000;
  server.headersTimeout = edge?.headersTimeoutMs ?? 66000;
  if (edge) server.requestTimeout = edge.requestTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    url: `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${actual}`,
    close: (deadlineMs = 10000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), deadlineMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/**
 * Ordered shutdown (STYLE 6): handlers run once, in the order registered (stop accepting first,
 * pools last), bounded by one deadline. A second signal does not start a second shutdown.
 */
export class ShutdownManager {
  private readonly handlers: { name: string; fn: () => Promise<void> }[] = [];
  private running: Promise<void> | null = null;
  stopping = false;

  constructor(private readonly logger: Logger, private readonly deadlineMs: number) {}

  register(name: string, fn: () => Promise<void>): void {
    this.handlers.push({ name, fn });
  }

  run(reason: string): Promise<void> {
    if (this.running) return this.running;
    this.stopping = true;
    this.logger.info({ reason }, 'shutting down');
    const work = (async () => {
      for (const { name, fn } of this.handlers) {
        try {
          await fn();
        } catch (err) {
          this.logger.error({ err, step: name }, 'shutdown step failed');
        }
      }
    })();
    const deadline = new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.logger.error({ deadlineMs: this.deadlineMs }, 'shutdown deadline passed');
        resolve();
      }, this.deadlineMs);
      t.unref();
    });
    this.running = Promise.race([work, deadline]);
    return this.running;
  }
}

/** Process entry point: start, then on SIGTERM/SIGINT run the ordered shutdown and exit. */
export async function runMain(logger: Logger, deadlineMs: number, start: (shutdown: ShutdownManager) => Promise<void>): Promise<void> {
  const shutdown = new ShutdownManager(logger, deadlineMs);
  const stop = (signal: string) => {
    shutdown.run(signal).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));
  try {
    await start(shutdown);
  } catch (err) {
    logger.fatal({ err }, 'failed to start');
    await shutdown.run('start failure');
    process.exit(1);
  }
}
