import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxCasino, type SandboxCasinoOptions } from './casino';
import { control } from './control';
import type { SandboxOperation } from './faults';
import { isLobbyPath, Lobby } from './lobby';

/**
 * A runnable casino wallet speaking docs/api/casino.json, for tests and the demo:
 *   POST {url}/wallet/{balance|debit|credit|round-ended}   the wallet (any path prefix after /wallet
 *                                                          is allowed, so each casino can get its own walletUrl)
 *   {url}/_control/...                                      scripting (see control.ts)
 *   {url}/lobby                                             a casino lobby page (see lobby.ts)
 */
export interface CasinoSandboxOptions extends SandboxCasinoOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1: the control API has no authentication. */
  host?: string;
}

const OPERATIONS = new Set<string>(['balance', 'debit', 'credit', 'round-ended']);
const BODY_LIMIT = 64 * 1024;

export class CasinoSandbox extends SandboxCasino {
  /** Base address, e.g. http://127.0.0.1:8090 */
  readonly url: string;
  /** `url + '/wallet'`: the walletUrl to register for a casino. */
  readonly walletUrl: string;
  /** The lobby page; `lobby.configure(...)` names the game "Play" launches. */
  readonly lobby: Lobby;

  constructor(
    private readonly server: http.Server,
    readonly port: number,
    host: string,
    options: SandboxCasinoOptions,
  ) {
    super(options);
    const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    this.url = `http://${shown}:${port}`;
    this.walletUrl = `${this.url}/wallet`;
    this.lobby = new Lobby(this, this.url);
  }

  /** A walletUrl of its own for one casino (same ledger, same behaviour). */
  walletUrlFor(providerId: string): string {
    return `${this.walletUrl}/${encodeURIComponent(providerId)}`;
  }

  async close(): Promise<void> {
    this.stop();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }
}

export async function startCasinoSandbox(options: CasinoSandboxOptions = {}): Promise<CasinoSandbox> {
  const host = options.host ?? '127.0.0.1';
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const sandbox = new CasinoSandbox(server, (server.address() as AddressInfo).port, host, options);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    serve(sandbox, req, res).catch((err: unknown) => {
      console.error('casino sandbox: unexpected error', err);
      if (!res.headersSent) send(res, 500, { error: 'INTERNAL_ERROR' });
      else res.destroy();
    });
  });
  return sandbox;
}

async function serve(sandbox: CasinoSandbox, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sandbox');
  const segments = url.pathname.split('/').filter(Boolean);
  const raw = await readBody(req);
  if (raw === null) return send(res, 413, { error: 'PAYLOAD_TOO_LARGE' }, true);

  if (segments[0] === 'wallet') {
    const operation = segments[segments.length - 1];
    if (segments.length < 2 || !OPERATIONS.has(operation)) return send(res, 404, { error: 'NOT_FOUND' });
    if (req.method !== 'POST') return send(res, 405, { error: 'METHOD_NOT_ALLOWED' });
    const outcome = await sandbox.handle(operation as SandboxOperation, raw, req.headers);
    if (outcome.kind === 'reset') return void req.socket.destroy();
    const close = sandbox.breaks.has('no-keep-alive') ? { connection: 'close' } : {};
    res.writeHead(outcome.status, { 'content-type': outcome.contentType, 'content-length': Buffer.byteLength(outcome.text), ...close }).end(outcome.text);
    return;
  }

  if (isLobbyPath(url.pathname)) {
    const page = await sandbox.lobby.handle(req.method ?? 'GET', url.pathname, raw);
    res.writeHead(page.status, { ...page.headers, 'content-length': Buffer.byteLength(page.body) }).end(page.body);
    return;
  }

  if (segments[0] === '_control') {
    let body: unknown = undefined;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return send(res, 400, { error: 'BAD_REQUEST', message: 'body is not JSON' });
      }
    }
    const answer = await control(sandbox, req.method ?? 'GET', url.pathname, url.searchParams, body);
    return send(res, answer.status, answer.body);
  }

  if (url.pathname === '/healthz') return send(res, 200, { status: 'ok' });
  send(res, 404, { error: 'NOT_FOUND' });
}

function send(res: http.ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(close ? { connection: 'close' } : {}) }).end(text);
}

/** The whole body, or null when it is larger than BODY_LIMIT. */
function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
