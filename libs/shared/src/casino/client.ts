import net from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Counter, Histogram } from 'prom-client';
import { Agent, type Dispatcher } from 'undici';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { ServiceMetrics } from '../metrics';
import { inSpan, traceHeaders, tracer } from '../tracing';
import { CasinoAddressPolicy } from './address-policy';
import { interpretCasinoAnswer, timedOut, unreachable, type CasinoAccount, type CasinoAnswer, type CasinoFailure, type CasinoResult } from './answer';
import type { CasinoMoneyOperation, CasinoOperation, CasinoWallet } from './protocol';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signCasinoRequest } from './signature';
import { casinoSpanAttributes } from './span-attributes';

export interface CasinoClientOptions {
  /** CASINO_TIMEOUT_MS: the whole call, connect to last body byte. */
  timeoutMs: number;
  logger?: Logger;
  metrics?: ServiceMetrics;
  /** Upper bound of open connections to one casino origin. */
  connectionsPerOrigin?: number;
  /** A casino answer longer than this is cut (and then is not JSON). */
  maxResponseBytes?: number;
  /** Which addresses a call may connect to (production: public ones only). */
  addressPolicy?: CasinoAddressPolicy;
}

const CALLS_METRIC = 'casino_calls_total';
const LATENCY_METRIC = 'casino_call_duration_seconds';
type Labels = 'provider_id' | 'operation' | 'outcome';
const OPERATIONS: CasinoOperation[] = ['balance', 'debit', 'credit', 'round-ended'];

/**
 * ok; declined: the casino refused for the player (funds, an expired token, an unknown player: a
 * 4xx); casino_error: the casino failed (5xx, time-out, no connection, an answer we cannot use).
 * Only the last is the casino's outage, reported to the casino and kept out of the relay's budget.
 */
export type CasinoOutcome = 'ok' | 'declined' | 'casino_error';
export const CASINO_OUTCOMES: CasinoOutcome[] = ['ok', 'declined', 'casino_error'];

export function casinoOutcome(result: CasinoResult<CasinoAnswer>): CasinoOutcome {
  if (result.ok) return 'ok';
  const status = result.casinoStatus;
  return status !== undefined && status >= 400 && status < 500 ? 'declined' : 'casino_error';
}

/**
 * The relay's only way to reach a casino wallet (docs/api/casino.json). A call never throws for anything
 * the casino or the network does: it resolves to a result whose error carries the relay code, so
 * the caller can store it on the transaction record. Never retries: a money call is repeated only
 * by the game, with the same transactionId.
 */
export class CasinoClient {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly logger?: Logger;
  private readonly calls?: Counter<Labels>;
  private readonly latency?: Histogram<Labels>;
  private readonly tracer = tracer('casino-client');
  private readonly policy?: CasinoAddressPolicy;
  private readonly known = new Set<string>();

  constructor(options: CasinoClientOptions) {
    this.timeoutMs = options.timeoutMs;
    this.policy = options.addressPolicy;
    this.maxResponseBytes = options.maxResponseBytes ?? 1024 * 1024;
    this.logger = options.logger;
    // One keep-alive pool per casino origin (the Agent keys pools by origin), bounded so one slow
    // casino cannot take every socket of the process.
    this.agent = new Agent({
      connections: options.connectionsPerOrigin ?? 64,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 60_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: options.timeoutMs, ...(this.policy?.enforced ? { lookup: this.policy.lookup } : {}) },
    });
    if (options.metrics) {
      const registry = options.metrics.registry;
      // Several clients may share one service registry; prom-client refuses a second registration.
      this.calls =
        (registry.getSingleMetric(CALLS_METRIC) as Counter<Labels> | undefined) ??
        options.metrics.counter(CALLS_METRIC, 'Calls to casino wallets by casino, operation and outcome (ok, declined, casino_error)', ['provider_id', 'operation', 'outcome']);
      this.latency =
        (registry.getSingleMetric(LATENCY_METRIC) as Histogram<Labels> | undefined) ??
        options.metrics.histogram(LATENCY_METRIC, 'Latency of calls to casino wallets', ['provider_id', 'operation', 'outcome'], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);
    }
  }

  /**
   * Starts every series of these casinos at zero, so that an alert on increase() sees their first
   * failure (a series that appears at 1 shows no increase).
   */
  knowCasinos(providerIds: Iterable<string>): void {
    for (const providerId of providerIds) {
      if (this.known.has(providerId)) continue;
      this.known.add(providerId);
      for (const operation of OPERATIONS) {
        for (const outcome of CASINO_OUTCOMES) {
          const labels = { provider_id: providerId, operation, outcome };
          this.calls?.inc(labels, 0);
          this.latency?.zero(labels);
        }
      }
    }
  }

  call(casino: CasinoWallet, operation: CasinoMoneyOperation, body: object): Promise<CasinoResult<CasinoAccount>>;
  call(casino: CasinoWallet, operation: 'round-ended', body: object): Promise<CasinoResult<CasinoAnswer>>;
  call(casino: CasinoWallet, operation: CasinoOperation, body: object): Promise<CasinoResult<CasinoAnswer | CasinoAccount>>;
  async call(casino: CasinoWallet, operation: CasinoOperation, body: object): Promise<CasinoResult<CasinoAnswer | CasinoAccount>> {
    const started = performance.now();
    const attributes = { 'relay.provider_id': casino.providerId, 'relay.casino_operation': operation, ...casinoSpanAttributes(casino.walletUrl, operation) };
    const result = await inSpan(
      this.tracer,
      `casino ${operation}`,
      attributes,
      async (span) => {
        const r = await this.send(casino, operation, body);
        const status = r.ok ? r.status : r.casinoStatus;
        if (status !== undefined) span.setAttribute('http.response.status_code', status);
        if (!r.ok) {
          span.setAttribute('error.type', r.error.code);
          span.setStatus({ code: SpanStatusCode.ERROR, message: r.error.code });
        }
        return r;
      },
      { kind: SpanKind.CLIENT },
    );
    this.observe(casino.providerId, operation, result, (performance.now() - started) / 1000);
    return result;
  }

  /** Lets in-flight calls finish, then closes every pool. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private async send(casino: CasinoWallet, operation: CasinoOperation, body: object): Promise<CasinoResult<CasinoAnswer | CasinoAccount>> {
    const target = walletTarget(casino.walletUrl, operation);
    if (!target) return { ok: false, error: new AppError('PROVIDER_API_FAILURE', 'The casino wallet URL is not a valid http(s) URL') };
    // An address literal is connected to without a lookup: checked here (names: in the lookup).
    const literal = target.hostname;
    const refused = literal && this.policy ? this.policy.refusal(literal) : null;
    if (refused) return { ok: false, error: new AppError('PROVIDER_API_FAILURE', `The casino wallet address is not allowed: ${refused}`) };
    const payload = JSON.stringify(body);
    const timestamp = Math.floor(Date.now() / 1000);
    const walletToken = (body as { walletToken?: unknown }).walletToken;
    const scrub = typeof walletToken === 'string' && walletToken !== '' ? [walletToken] : [];
    // A timer cleared when the call ends, not AbortSignal.timeout(): that one stays alive for the
    // whole time-out after every call and drags each call's objects into the old generation.
    const controller = new AbortController();
    const signal = controller.signal;
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const res = await this.agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: {
          ...traceHeaders(),
          'content-type': 'application/json',
          accept: 'application/json',
          [TIMESTAMP_HEADER]: String(timestamp),
          [SIGNATURE_HEADER]: signCasinoRequest(casino.walletSecret, timestamp, payload),
        },
        body: payload,
        signal,
      });
      const text = await readCapped(res.body, this.maxResponseBytes);
      return interpretCasinoAnswer(operation, res.statusCode, text, scrub);
    } catch (err) {
      if (signal.aborted || isTimeout(err)) return timedOut(operation, this.timeoutMs);
      return unreachable(operation, err);
    } finally {
      clearTimeout(timer);
    }
  }

  private observe(providerId: string, operation: CasinoOperation, result: CasinoResult<CasinoAnswer>, seconds: number): void {
    this.knowCasinos([providerId]);
    const outcome = casinoOutcome(result);
    const labels = { provider_id: providerId, operation, outcome };
    this.calls?.inc(labels);
    this.latency?.observe(labels, seconds);
    if (!this.logger) return;
    // The wallet URL, the body (walletToken) and the casino's answer stay out of the log line.
    const fields = { providerId, operation, outcome, ...(result.ok ? {} : { code: result.error.code }), durationMs: Math.round(seconds * 1000) };
    if (result.ok) this.logger.debug(fields, 'casino call succeeded');
    else this.logger.warn({ ...fields, ...withStatus(result) }, result.error.message);
  }
}

function withStatus(result: CasinoFailure): { casinoStatus?: number } {
  return result.casinoStatus !== undefined ? { casinoStatus: result.casinoStatus } : {};
}

/** `POST {walletUrl}/{operation}`, keeping any path prefix of the wallet URL. */
function walletTarget(walletUrl: string, operation: CasinoOperation): { origin: string; path: string; hostname: string | null } | null {
  let url: URL;
  try {
    url = new URL(walletUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { origin: url.origin, path: `${url.pathname.replace(/\/+$/, '')}/${operation}${url.search}`, hostname: net.isIP(host) ? host : null };
}

async function readCapped(body: Dispatcher.ResponseData['body'], cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    chunks.push(buf);
    size += buf.length;
    if (size >= cap) break; // leaving the loop destroys the stream and its socket
  }
  return Buffer.concat(chunks).subarray(0, cap).toString('utf8');
}

function isTimeout(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  const name = (err as { name?: unknown } | undefined)?.name;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || name === 'TimeoutError';
}
