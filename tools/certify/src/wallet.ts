import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signCasinoRequest, transportReason, type CasinoOperation } from '@relay/shared';
import { Agent } from 'undici';

/**
 * The kit's line to the casino wallet: requests signed exactly as the relay signs them (the relay's
 * own signer), or deliberately wrong, with what came back and how long it took. It never retries
 * and never interprets: the checks judge the answers.
 */
export interface SendOptions {
  /** Unix seconds to sign with; default now. */
  timestamp?: number;
  /** Sign with this secret instead of the casino's (a forged request). */
  secret?: string;
}

export interface Reply {
  operation: CasinoOperation;
  /** Undefined when no HTTP answer came back (`transportError` says why). */
  status?: number;
  text: string;
  contentType?: string;
  ms: number;
  transportError?: string;
}

export interface WalletTarget {
  walletUrl: string;
  walletSecret: string;
  timeoutMs: number;
}

const MAX_ANSWER_BYTES = 64 * 1024;

export class WalletLine {
  /** Answered, correctly signed calls: the latency figures of the report. */
  readonly samples: Reply[] = [];
  /** TCP connections opened so far (a keep-alive wallet reuses them). */
  connections = 0;
  private readonly agent: Agent;

  constructor(
    private readonly target: WalletTarget,
    options: { maxConnections?: number } = {},
  ) {
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      connections: options.maxConnections ?? null,
      headersTimeout: target.timeoutMs,
      bodyTimeout: target.timeoutMs,
      connect: { timeout: target.timeoutMs },
    });
    this.agent.on('connect', () => this.connections++);
  }

  async send(operation: CasinoOperation, body: object, options: SendOptions = {}): Promise<Reply> {
    const url = new URL(`${this.target.walletUrl.replace(/\/+$/, '')}/${operation}`);
    const payload = JSON.stringify(body);
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.target.timeoutMs);
    try {
      const res = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          [TIMESTAMP_HEADER]: String(timestamp),
          [SIGNATURE_HEADER]: signCasinoRequest(options.secret ?? this.target.walletSecret, timestamp, payload),
        },
        body: payload,
        signal: controller.signal,
      });
      const text = await readCapped(res.body);
      const contentType = res.headers['content-type'];
      const reply: Reply = { operation, status: res.statusCode, text, ms: performance.now() - started, ...(typeof contentType === 'string' ? { contentType } : {}) };
      if (options.secret === undefined && options.timestamp === undefined) this.samples.push(reply);
      return reply;
    } catch (err) {
      const why = controller.signal.aborted ? `no answer within ${this.target.timeoutMs} ms` : transportReason(err);
      return { operation, text: '', ms: performance.now() - started, transportError: why };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

async function readCapped(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk));
    size += chunk.length;
    if (size >= MAX_ANSWER_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}
