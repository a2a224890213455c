import http from 'node:http';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin, type Plugin } from 'http-proxy-middleware';
import {
  AppError,
  constantTimeEqual,
  hashToken,
  isAdminToken,
  createServiceApp,
  healthRouter,
  IDENTITY_HEADER,
  IdentitySigner,
  onConnectionClose,
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
import { AuthFailureLimit } from './auth/address-limit';
import { OperatorAuth } from './auth/operators';
import { clientAddress } from './auth/client-address';
import { bearerToken, ProviderTokens } from './auth/provider-tokens';
import { ProviderRateLimiter } from './auth/rate-limit';
import { UpstreamAdmission, UpstreamSlot } from './edge/admission';
import { bufferedBodyPlugin, readBody } from './edge/body';
import { audienceFor, routeFor } from './routes/route-table';
import { docsRouter } from './routes/docs';

type Upstream = Exclude<ServiceName, 'gateway'>;
const UPSTREAMS: Upstream[] = ['launcher', 'wallet', 'reporting', 'notifier', 'admin', 'backoffice'];

export function createGatewayApp(rt: Runtime): Express {
  const config = rt.config;
  const tokens = new ProviderTokens(rt.db.primary, rt.bus);
  const limiter = new ProviderRateLimiter(rt.redis, config.REDIS_KEY_PREFIX, config.RATE_LIMIT_PER_SECOND);
  const failures = new AuthFailureLimit(config.GATEWAY_AUTH_FAILURES_PER_MINUTE);
  const signer = new IdentitySigner(config.INTERNAL_AUTH_SECRET);
  const operators = new OperatorAuth(rt, failures);
  const upstreams = config.serviceUrls;
  const admissions = Object.fromEntries(
    UPSTREAMS.map((name) => [name, new UpstreamAdmission(name, config.GATEWAY_UPSTREAM_MAX_SOCKETS, config.GATEWAY_TENANT_SHARE)]),
  ) as Record<Upstream, UpstreamAdmission>;
  rt.metrics.gauge('gateway_upstream_in_flight', 'Requests the gateway holds open to each service', ['upstream'], function () {
    for (const name of UPSTREAMS) this.set({ upstream: name }, admissions[name].current);
  });

  // docs/operating-the-platform.md, health: readiness is what every route needs; each service is shown, not required.
  const services: Record<string, ReadinessCheck> = {};
  for (const name of UPSTREAMS) {
    services[name] = async () => {
      const res = await fetch(`${upstreams[name]}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (!res.ok) throw new Error(`${name} not ready`);
    };
  }

  const isAdmin = (req: Request) => {
    const token = bearerToken(req.headers.authorization);
    return token !== null && isAdminToken(token, config);
  };

  const authenticateProvider = async (req: Request): Promise<Identity> => {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new AppError('AUTHENTICATION_FAILED', 'Missing, unknown or revoked game provider token');
    let owner = tokens.cached(token);
    if (owner === undefined) {
      // Unknown to this gateway: a database lookup, which an address may fail only so often.
      await failures.check(clientAddress(req));
      owner = await tokens.authenticate(token);
    }
    if (!owner) {
      await failures.failed(clientAddress(req));
      throw new AppError('AUTHENTICATION_FAILED', 'Missing, unknown or revoked game provider token');
    }
    if (owner.groupStatus !== 'ACTIVE') throw new AppError('GROUP_NOT_ACTIVE', 'Game provider is not active');
    const ctx = currentContext();
    if (ctx) ctx.groupId = owner.groupId;
    const wait = await limiter.consume(owner.groupId, owner.rateLimitPerSecond);
    if (wait !== null) throw new AppError('RATE_LIMITED', 'Too many requests', { headers: { 'Retry-After': String(wait) } });
    return { kind: 'provider', groupId: owner.groupId };
  };

  const proxies = Object.fromEntries(UPSTREAMS.map((name) => [name, proxyTo(rt, upstreams[name])])) as Record<Upstream, RequestHandler>;

  /**
   * The edge, in order: route, credential, body (whole, within its deadline), a slot of the
   * service's connections within the caller's share, then the forwarded request with the signed
   * identity in place of the credential.
   */
  const forward: RequestHandler = async (req, res, next) => {
    const route = routeFor(req.path);
    const audience = audienceFor(req.path);
    if (!route || !audience || route.service === 'gateway') throw new AppError('NOT_FOUND', 'No such route');
    res.locals.route = route.template;
    let identity: Identity;
    if (audience === 'public') identity = { kind: 'public' };
    // A back-office session (cookie and CSRF token) or casino API token; a signed-in platform admin may also use /admin/v1.
    else if (audience === 'backoffice' || (audience === 'admin' && OperatorAuth.hasSession(req))) identity = await operators.identify(req);
    else if (audience === 'admin') {
      if (!isAdmin(req)) throw new AppError('AUTHENTICATION_FAILED', 'Admin token required');
      identity = { kind: 'admin' };
    } else identity = await authenticateProvider(req);

    req.bufferedBody = await readBody(req, config.GATEWAY_BODY_TIMEOUT_MS);
    const release = admissions[route.service as Upstream].admit(tenantOf(identity, req));
    // The caller may have hung up while it was authenticated: 'close' has fired, nothing to send.
    if (res.destroyed || req.socket.destroyed) return release();
    const slot = new UpstreamSlot(release, proxyTimeoutMs(config) + 1000);
    res.locals.upstreamSlot = slot;
    const forget = onConnectionClose(req.socket, () => slot.callerDone());
    res.once('close', () => {
      forget();
      slot.callerDone();
    });

    const headers = req.headers;
    delete headers.authorization;
    // The back-office session id is checked here and never travels further.
    delete headers.cookie;
    headers[IDENTITY_HEADER] = await signer.sign(identity);
    const requestId = currentContext()?.requestId;
    if (requestId) headers[REQUEST_ID_HEADER] = requestId;
    Object.assign(headers, traceHeaders());
    if (req.bufferedBody) {
      delete headers['transfer-encoding'];
      headers['content-length'] = String(req.bufferedBody.length);
    }
    // The body is already here; and http-proxy reports no proxyReq (the slot's hold) with Expect set.
    delete headers.expect;
    slot.starting();
    proxies[route.service as Upstream](req, res, next);
  };

  return createServiceApp({
    logger: rt.logger,
    metrics: rt.metrics,
    health: healthRouter(standardChecks(rt), rt.metrics, rt.isStopping, {
      informational: services,
      // The public port: metrics name tenants and routes, and scraping costs work.
      // The metrics token (Prometheus's) or the admin token; the metrics token opens nothing else.
      authorizeMetrics: (req) => {
        const token = bearerToken(req.headers.authorization);
        const scraper = token !== null && config.METRICS_TOKEN !== undefined && constantTimeEqual(hashToken(token), hashToken(config.METRICS_TOKEN));
        if (!scraper && !isAdmin(req)) throw new AppError('AUTHENTICATION_FAILED', 'The metrics token or the admin token is required');
      },
    }),
    parseJson: false,
    publicEdge: true,
    trustedProxyHops: config.GATEWAY_TRUSTED_PROXY_HOPS,
    routes: (app) => {
      // The API reference, answered by the gateway itself without a credential.
      app.use(docsRouter(rt.logger));
      app.use(forward);
    },
  });
}

/** Who a share of the upstream connections belongs to. */
function tenantOf(identity: Identity, req: Request): string {
  switch (identity.kind) {
    case 'provider':
      return `group:${identity.groupId}`;
    case 'operator':
      return `operator:${identity.accountId}`;
    case 'casino-token':
      return `casino-token:${identity.tokenId}`;
    case 'admin':
      return 'admin';
    default:
      return `address:${clientAddress(req)}`;
  }
}

function proxyTimeoutMs(config: Runtime['config']): number {
  return config.CASINO_TIMEOUT_MS * 3 + 5000;
}

function slotOf(res: unknown): UpstreamSlot | undefined {
  const slot = (res as Partial<Response>).locals?.upstreamSlot as unknown;
  return slot instanceof UpstreamSlot ? slot : undefined;
}

function proxyTo(rt: Runtime, target: string): RequestHandler {
  // One keep-alive pool per upstream, sized like its admission: a request is only sent when the
  // pool has a socket for it, so none ever waits in the agent's queue.
  const agent = new http.Agent({ keepAlive: true, maxSockets: rt.config.GATEWAY_UPSTREAM_MAX_SOCKETS, maxFreeSockets: 64, timeout: 60000 });
  const proxy = createProxyMiddleware<Request, Response>({
    target,
    agent,
    // The default plugins less its logger, which builds a URL for every proxied answer only to
    // hand it to a logger that writes nowhere (ours logs each request once, with its route).
    ejectPlugins: true,
    // (The plugins are typed for plain Node requests; express's extend them.)
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin, bufferedBodyPlugin] as unknown as Plugin<Request, Response>[],
    changeOrigin: false,
    xfwd: true,
    // Above the casino time-out, so a money call answers with the relay's own 408 rather than ours.
    proxyTimeout: proxyTimeoutMs(rt.config),
    on: {
      // The forwarded request has its socket: the caller's slot is held until it closes.
      proxyReq: (proxyReq, _req, res) => slotOf(res)?.opened(proxyReq),
      // The caller hung up and http-proxy aborted the forwarded request, maybe before its socket
      // (then no proxyReq is reported): reported here, not as an error.
      econnreset: (_err, _req, res) => slotOf(res)?.upstreamDone(),
      error: (err, req, res) => {
        slotOf(res)?.upstreamDone();
        rt.logger.warn({ err: { message: (err as Error).message, code: (err as NodeJS.ErrnoException).code }, target }, 'upstream unavailable');
        const response = res as Response;
        if (typeof response.status !== 'function' || response.headersSent) {
          (res as { destroy?: () => void }).destroy?.();
          return;
        }
        renderError(req as Request, response, new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable', { headers: { 'Retry-After': '1' } }));
      },
    },
  });
  return (req: Request, res: Response, next: NextFunction) => proxy(req, res, next);
}
