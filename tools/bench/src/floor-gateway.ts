import http from 'node:http';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin, type Plugin } from 'http-proxy-middleware';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { createRedis, hashToken, IDENTITY_HEADER, IdentitySigner } from '@relay/shared';
import { bufferedBodyPlugin, readBody } from '@relay/gateway';
import { expressApp, required, serve } from './floor-process';

/**
 * The floor of the gateway hop (money bench, "bare stand-ins"): what the architecture makes the
 * gateway do per call and nothing else. A game provider token is looked up by its hash, the caller's
 * identity is signed (the signed token reused, as the gateway does), and the request is piped to
 * the wallet over a keep-alive pool. No express, no logging, no metrics, no input checks.
 * FLOOR_PORT, FLOOR_UPSTREAM (the wallet's origin), FLOOR_TOKEN_HASH and FLOOR_GROUP_ID,
 * INTERNAL_AUTH_SECRET.
 *
 * With FLOOR_REDIS_URL and FLOOR_RATE_LIMIT (requests per second, > 0), each call is also counted
 * against the game provider's budget in Redis, as the gateway's limiter counts it (the same library
 * and settings, one round trip per call), and refused with 429 over it: the limit is I/O the
 * platform must do per call (one tenant must not starve another), so the floor does it too.
 * FLOOR_REDIS_PREFIX keeps its keys apart from the gateway's.
 *
 * FLOOR_FRAMEWORK=express: the same work on the frameworks the architecture fixes for the gateway,
 * an express app with http-proxy-middleware configured as the gateway configures it (the body read
 * whole first and handed over by the gateway's own readBody and bufferedBodyPlugin), and nothing else: what any gateway of this architecture
 * costs before its own per-request work.
 */
const upstream = new URL(required('FLOOR_UPSTREAM'));
const tokens = new Map([[required('FLOOR_TOKEN_HASH'), required('FLOOR_GROUP_ID')]]);
const signer = new IdentitySigner(required('INTERNAL_AUTH_SECRET'));
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const limit = Number(process.env.FLOOR_RATE_LIMIT ?? 0);
const limiter = process.env.FLOOR_REDIS_URL && limit > 0
  ? new RateLimiterRedis({ storeClient: createRedis(process.env.FLOOR_REDIS_URL), keyPrefix: `${process.env.FLOOR_REDIS_PREFIX ?? 'floor'}:rl:${limit}`, points: limit, duration: 1 })
  : null;

/** Whether the call is within the provider's budget (no limiter: always). */
async function allowed(groupId: string): Promise<boolean> {
  if (!limiter) return true;
  try {
    await limiter.consume(groupId, 1);
    return true;
  } catch (err) {
    if (err instanceof RateLimiterRes) return false;
    throw err;
  }
}

/** The caller's group, refused with the gateway's statuses: null when an answer was already sent. */
async function admit(authorization: string | undefined, res: http.ServerResponse): Promise<string | null> {
  const token = (authorization ?? '').replace(/^Bearer /, '');
  const groupId = tokens.get(hashToken(token));
  if (!groupId) {
    res.writeHead(401).end();
    return null;
  }
  if (!(await allowed(groupId))) {
    res.writeHead(429).end();
    return null;
  }
  return groupId;
}

function bare(): http.Server {
  return http.createServer((req, res) => {
    if (req.url === '/readyz') {
      res.writeHead(200).end();
      return;
    }
    void admit(req.headers.authorization, res).then(async (groupId) => {
      if (!groupId) return;
      const identity = await signer.sign({ kind: 'provider', groupId });
      const headers = { ...req.headers, [IDENTITY_HEADER]: identity };
      delete headers.authorization;
      const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.writeHead(502).end());
      req.pipe(out);
    }).catch(() => res.writeHead(502).end());
  });
}

function onExpress(): http.Server {
  const app = expressApp();
  app.use(async (req, res, next) => {
    const groupId = await admit(req.headers.authorization, res);
    if (!groupId) return;
    req.bufferedBody = await readBody(req, 10_000);
    req.headers[IDENTITY_HEADER] = await signer.sign({ kind: 'provider', groupId });
    if (req.bufferedBody) req.headers['content-length'] = String(req.bufferedBody.length);
    delete req.headers.authorization;
    next();
  });
  app.use(
    createProxyMiddleware({
      target: upstream.origin,
      agent,
      ejectPlugins: true,
      plugins: [debugProxyErrorsPlugin, proxyEventsPlugin, bufferedBodyPlugin] as unknown as Plugin[],
      changeOrigin: false,
      xfwd: true,
    }),
  );
  return http.createServer(app);
}

serve(process.env.FLOOR_FRAMEWORK === 'express' ? onExpress() : bare());
