import express, { type ErrorRequestHandler, type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { onConnectionClose } from './connection';
import { AppError, isAppError } from './errors';
import { context } from '@opentelemetry/api';
import { currentContext, runWithContext } from './context';
import type { ServiceMetrics } from './metrics';
import { endServerSpan, startServerSpan, tracer } from './tracing';

export const BODY_LIMIT = '64kb';
export const REQUEST_ID_HEADER = 'x-request-id';

/** Route families render errors differently (spec: Response styles; docs/api, error bodies). */
export type ErrorStyle = 'envelope' | 'wallet';

export function errorStyleFor(path: string): ErrorStyle {
  return /^\/(api|admin|backoffice)\/v1(\/|$)/.test(path) ? 'envelope' : 'wallet';
}

export function sendEnvelope(res: Response, status: number, message: string, data: unknown, meta?: ListMeta): void {
  res.status(status).json(meta ? { statusCode: status, message, data, meta } : { statusCode: status, message, data });
}

export interface PageMeta {
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

/** Meta of a list walked with a keyset cursor: nextCursor is null after the last page; total on the first page only. */
export interface CursorMeta {
  total?: number;
  limit: number;
  nextCursor: string | null;
}

export type ListMeta = PageMeta | CursorMeta;

export function pageMeta(total: number, page: number, limit: number): PageMeta {
  return { total, page, limit, totalPages: Math.ceil(total / limit) };
}

export function renderError(req: Request, res: Response, err: AppError): void {
  // Read by metrics that classify an answer by its code (the wallet's money-call results).
  res.locals.errorCode = err.code;
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  if (errorStyleFor(req.path) === 'envelope') {
    res.status(err.status).json({
      statusCode: err.status,
      message: err.message,
      error: err.code,
      data: err.options.data ?? null,
      ...(err.options.details ? { details: err.options.details } : {}),
    });
    return;
  }
  if (req.path === '/launch' && req.accepts(['json', 'html']) === 'html') {
    res.status(err.status).type('html').send(errorPage(err));
    return;
  }
  res.status(err.status).json({ error: err.code, message: err.message });
}

function errorPage(err: AppError): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${err.status} ${esc(err.code)}</title></head>` +
    `<body><h1>We could not open this game</h1><p>${esc(err.message)}</p><p><code>${esc(err.code)}</code></p></body></html>`;
}

/** Translates anything thrown into the platform's error model; unknown errors are a plain 500. */
export function toAppError(err: unknown, logger: Logger): AppError {
  if (isAppError(err)) return err;
  const e = err as { type?: string; status?: number; statusCode?: number };
  if (e?.type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than 64 KiB');
  if (e?.type === 'entity.parse.failed') return new AppError('Bad Request', 'Request body is not valid JSON');
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return new AppError('Bad Request', 'The request could not be read');
  if (isDependencyOutage(err)) {
    // Not a 500: on cash-out that status means "the casino failed the debit". The game should
    // repeat the same request (same transactionId); the idempotency rules make that safe.
    logger.error({ err: { message: (err as Error).message, code: (err as { code?: unknown }).code } }, 'dependency unavailable');
    return new AppError('SERVICE_UNAVAILABLE', 'A dependency of the relay is unavailable; repeat the request', { headers: { 'Retry-After': '1' } });
  }
  logger.error({ err }, 'unexpected error');
  return new AppError('INTERNAL_ERROR', 'Internal error');
}

const OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '53300']);

/** PostgreSQL or Redis unreachable, restarting or out of connections (SQLSTATE class 08 included). */
export function isDependencyOutage(err: unknown): boolean {
  const e = err as { code?: unknown; name?: unknown; message?: unknown } | null;
  if (!e) return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (OUTAGE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  const name = typeof e.name === 'string' ? e.name : '';
  if (name === 'KnexTimeoutError' || name === 'MaxRetriesPerRequestError') return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|Stream isn't writeable|Client has encountered a connection error|the database system is (starting up|shutting down)/.test(message);
}

export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appErr = toAppError(err, logger);
    if (appErr.status < 500 || appErr.code !== 'INTERNAL_ERROR') {
      logger.warn({ code: appErr.code, status: appErr.status }, appErr.message);
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    renderError(req, res, appErr);
  };
}

/** No game or admin payload needs more; deeper JSON would overflow JSON.stringify when recorded. */
export const MAX_JSON_DEPTH = 100;

/**
 * Input every service refuses up front (400) rather than deep in a write: a NUL anywhere (no
 * PostgreSQL text can hold one, no identifier or label needs one), text that is not well-formed
 * Unicode (an unpaired surrogate: PostgreSQL stores it as U+FFFD, so two different transactionIds
 * would become one record and the second a "replay" that moves no money), and JSON nested deeper
 * than MAX_JSON_DEPTH. Iterative, so a deeply nested body cannot exhaust the stack of the check.
 */
export const refuseUnsafeInput: RequestHandler = (req, _res, next) => {
  const stack: [unknown, number][] = [
    [req.query, 0],
    [req.body, 0],
  ];
  let visited = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (++visited > 100_000) return next(badRequestError('Request is too complex'));
    if (typeof value === 'string') {
      const problem = unsafeText(value);
      if (problem) return next(badRequestError(problem));
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_JSON_DEPTH) return next(badRequestError(`Request is nested deeper than ${MAX_JSON_DEPTH} levels`));
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
        const problem = unsafeText(key);
        if (problem) return next(badRequestError(problem));
        stack.push([child, depth + 1]);
      }
    }
  }
  next();
};

function unsafeText(text: string): string | null {
  if (text.includes('\u0000')) return 'Request contains a NUL character';
  if (!(text as string & { isWellFormed(): boolean }).isWellFormed()) return 'Request contains text that is not well-formed Unicode (an unpaired surrogate)';
  return null;
}

function badRequestError(message: string): AppError {
  return new AppError('Bad Request', message);
}

export const notFound: RequestHandler = (_req, _res, next) => next(new AppError('NOT_FOUND', 'No such route'));

export interface ServiceAppOptions {
  logger: Logger;
  metrics: ServiceMetrics;
  /** Health, readiness and metrics routes; mounted before authentication. */
  health: express.Router;
  /** Mounts the service's routes (after request context, metrics and body parsing). */
  routes: (app: Express) => void;
  /** The gateway streams bodies through untouched; every other service parses JSON. */
  parseJson?: boolean;
  /** The gateway: a caller's traceparent is linked, not continued (see startServerSpan). */
  publicEdge?: boolean;
  /** Proxies in front of this app whose X-Forwarded-For names the client (express 'trust proxy'). */
  trustedProxyHops?: number;
}

/** The common shell of every service: context, access log, metrics, body limit, errors. */
export function createServiceApp(opts: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', opts.trustedProxyHops ?? 0);
  if (opts.publicEdge) app.use(edgeHeaders);
  app.use(requestContext(opts.logger, opts.metrics, opts.publicEdge ?? false));
  app.use(opts.health);
  if (opts.parseJson !== false) app.use(express.json({ limit: BODY_LIMIT }));
  app.use(refuseUnsafeInput);
  opts.routes(app);
  app.use(notFound);
  app.use(errorMiddleware(opts.logger));
  return app;
}

/**
 * On every answer of the public edge, whatever serves it (the gateway itself, a service behind it,
 * an error): browsers must not guess a content type (an answer that echoes input is never run as
 * script or a page), and must reach this host over HTTPS only from the first answer on (a proxy or
 * ingress terminates TLS in front of the gateway; over plain HTTP a browser ignores the header).
 */
const EDGE_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
};
function edgeHeaders(_req: Request, res: Response, next: NextFunction): void {
  for (const [name, value] of Object.entries(EDGE_HEADERS)) res.setHeader(name, value);
  next();
}

const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Per request: the request id, a SERVER span continuing the caller's trace (probes and scrapes get
 * none), and on finish the metrics and the one access log line (request id, trace id, game
 * provider, casino, route, status, duration).
 */
function requestContext(logger: Logger, metrics: ServiceMetrics, publicEdge: boolean): RequestHandler {
  const serverTracer = tracer(metrics.service);
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers[REQUEST_ID_HEADER];
    const requestId = typeof incoming === 'string' && /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const probe = PROBES.has(req.path);
    const traced = probe ? null : startServerSpan(serverTracer, req.method, req.headers, publicEdge);
    const ended = probe ? null : metrics.requestStarted();
    const run = () =>
      runWithContext({ requestId }, () => {
        const ctx = currentContext();
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          const route = routeLabel(req, res);
          // A client that hung up before the answer is recorded as 499, as proxies do.
          const status = res.writableFinished ? res.statusCode : 499;
          ended?.();
          // Probes and scrapes are not traffic: counting them would dilute every ratio and latency.
          if (!traced) return;
          metrics.observeRequest(req.method, route, status, seconds);
          // 'finish' fires outside the request's async context: enter it again for the log line.
          context.with(traced.ctx, () =>
            runWithContext(ctx ?? { requestId }, () =>
              logger.info({ method: req.method, route, status, durationMs: Math.round(seconds * 1e5) / 100 }, 'request'),
            ),
          );
          endServerSpan(traced.span, req.method, route, status);
        };
        res.on('finish', finish);
        res.on('close', finish);
        // A pipelined request whose answer waits behind an earlier one gets neither event when
        // the connection drops (Node leaves it queued): the connection's 'close' ends it (as 499).
        res.once('close', onConnectionClose(req.socket, finish));
        next();
      });
    if (traced) context.with(traced.ctx, run);
    else run();
  };
}

/**
 * The route a request is counted, traced and logged under: the template the app matched (an
 * express route, or the gateway's route table through res.locals.route), else one constant. Never
 * the path: it carries session ids, and unmatched paths would grow the label set without bound.
 */
function routeLabel(req: Request, res: Response): string {
  if (typeof res.locals.route === 'string') return res.locals.route;
  if (req.route) return `${req.baseUrl}${String(req.route.path)}`;
  return 'unmatched';
}

/** Express 5 forwards rejected promises to the error middleware; this only narrows the type. */
export type AsyncHandler = (req: Request, res: Response) => Promise<void>;
export function handler(fn: AsyncHandler): RequestHandler {
  return (req, res, next) => fn(req, res).catch(next);
}
