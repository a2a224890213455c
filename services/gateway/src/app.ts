import http from 'node:http';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin, type Plugin } from 'http-proxy-middleware';
import {
  AppError,
  constantTimeEqual,
  createServiceApp,
  healthRouter,
  IDENTITY_HEADER,
  IdentitySigner,
  REQUEST_ID_HEADER,
  currentContext,
  renderError,
  standardChecks,
  traceHeaders,
  type Identity,
  type ReadinessCheck,
  type Runtime,
  type ServiceName,
} from '@relay/shared';
import { OperatorAuth } from './auth/operators';
import { bearerToken, ProviderTokens } from './auth/provider-tokens';
import { ProviderRateLimiter } from './auth/rate-limit';
import { audienceFor, serviceFor } from './routes/route-table';

const MAX_BODY_BYTES = 64 * 1024;

declare module 'express-serve-static-core' {
  interface Request {
    forwardedIdentity?: string;
  }
}

export function createGatewayApp(rt: Runtime): Express {
  const tokens = new ProviderTokens(rt.db.primary, rt.bus);
  const limiter = new ProviderRateLimiter(rt.redis, rt.config.REDIS_KEY_PREFIX, rt.config.RATE_LIMIT_PER_SECOND);
  const signer = new IdentitySigner(rt.config.INTERNAL_AUTH_SECRET);
  const operators = new OperatorAuth(rt);
  const upstreams = rt.config.serviceUrls;

  const checks: Record<string, ReadinessCheck> = { ...standardChecks(rt) };
  for (const name of ['launcher', 'wallet', 'reporting', 'notifier', 'admin', 'backoffice'] as const) {
    checks[name] = async () => {
      const res = await fetch(`${upstreams[name]}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (!res.ok) throw new Error(`${name} not ready`);
    };
  }

  const authenticate: RequestHandler = async (req, _res, next) => {
    const audience = audienceFor(req.path);
    if (!audience) throw new AppError('NOT_FOUND', 'No such route');
    let identity: Identity;
    if (audience === 'public') {
      identity = { kind: 'public' };
    } else if (audience === 'backoffice' || (audience === 'admin' && OperatorAuth.hasSession(req))) {
      identity = await operators.identify(req);
    } else if (audience === 'admin') {
      const token = bearerToken(req.headers.authorization);
      if (!token || !constantTimeEqual(token, rt.config.ADMIN_TOKEN)) throw new AppError('AUTHENTICATION_FAILED', 'Admin token required');
      identity = { kind: 'admin' };
    } else {
      const token = bearerToken(req.headers.authorization);
      const owner = token ? await tokens.authenticate(token) : null;
      if (!owner) throw new AppError('AUTHENTICATION_FAILED', 'Missing, unknown or revoked game provider token');
      if (owner.groupStatus !== 'ACTIVE') throw new AppError('GROUP_NOT_ACTIVE', 'Game provider is not active');
      const ctx = currentContext();
      if (ctx) ctx.groupId = owner.groupId;
      const wait = await limiter.consume(owner.groupId, owner.rateLimitPerSecond);
      if (wait !== null) throw new AppError('RATE_LIMITED', 'Too many requests', { headers: { 'Retry-After': String(wait) } });
      identity = { kind: 'provider', groupId: owner.groupId };
    }
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > MAX_BODY_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than 64 KiB');
    req.forwardedIdentity = await signer.sign(identity);
    next();
  };

  const proxies = Object.fromEntries(
    (['launcher', 'wallet', 'reporting', 'notifier', 'admin', 'backoffice'] as const).map((name) => [name, proxyTo(rt, upstreams[name])]),
  ) as Record<Exclude<ServiceName, 'gateway'>, RequestHandler>;

  const route: RequestHandler = (req, res, next) => {
    const service = serviceFor(req.path);
    if (!service || service === 'gateway') {
      next(new AppError('NOT_FOUND', 'No such route'));
      return;
    }
    proxies[service](req, res, next);
  };

  return createServiceApp({
    logger: rt.logger,
    metrics: rt.metrics,
    health: healthRouter(checks, rt.metrics, rt.isStopping),
    parseJson: false,
    publicEdge: true,
    routes: (app) => {
      app.use(authenticate, route);
    },
  });
}

function proxyTo(rt: Runtime, target: string): RequestHandler {
  // One keep-alive pool per upstream: the default agent opens a connection per request.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 60000 });
  const proxy = createProxyMiddleware<Request, Response>({
    target,
    agent,
    // The default plugins less its logger, which builds a URL for every proxied answer only to
    // hand it to a logger that writes nowhere (ours logs each request once, with its route).
    ejectPlugins: true,
    // (The plugins are typed for plain Node requests; express's extend them.)
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin] as unknown as Plugin<Request, Response>[],
    changeOrigin: false,
    xfwd: true,
    // Above the casino time-out, so a money call answers with the relay's own 408 rather than ours.
    proxyTimeout: rt.config.CASINO_TIMEOUT_MS * 3 + 5000,
    on: {
      proxyReq: (proxyReq, req) => {
        proxyReq.removeHeader('authorization');
        // The back-office session id is checked here and never travels further.
        proxyReq.removeHeader('cookie');
        proxyReq.setHeader(IDENTITY_HEADER, req.forwardedIdentity ?? '');
        const requestId = currentContext()?.requestId;
        if (requestId) proxyReq.setHeader(REQUEST_ID_HEADER, requestId);
        for (const [name, value] of Object.entries(traceHeaders())) proxyReq.setHeader(name, value);
      },
      error: (err, req, res) => {
        rt.logger.warn({ err: { message: (err as Error).message, code: (err as NodeJS.ErrnoException).code }, target }, 'upstream unavailable');
        const response = res as Response;
        if (typeof response.status !== 'function' || response.headersSent) {
          (res as { destroy?: () => void }).destroy?.();
          return;
        }
        renderError(req as Request, response, new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable'));
      },
    },
  });
  return (req: Request, res: Response, next: NextFunction) => proxy(req, res, next);
}
