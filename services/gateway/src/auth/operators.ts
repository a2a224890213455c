import type { Request } from 'express';
import {
  AppError,
  constantTimeEqual,
  isAdminToken,
  CSRF_HEADER,
  hashToken,
  operatorSessionId,
  OperatorSessions,
  type Identity,
  type Runtime,
} from '@relay/shared';
import type { AuthFailureLimit } from './address-limit';
import { CasinoApiTokens } from './casino-api-tokens';
import { clientAddress } from './client-address';
import { bearerToken } from './provider-tokens';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const CASINO_TOKEN_PREFIX = 'cat_';

/**
 * Credentials of people and casinos' systems on the back office (and of platform admins who
 * signed in, on the admin API): the session cookie with its CSRF token on every state-changing
 * request, a casino API token, or the ADMIN_TOKEN. Sign-in routes are the only ones reached
 * without any.
 */
export class OperatorAuth {
  private readonly sessions: OperatorSessions;
  private readonly casinoTokens: CasinoApiTokens;

  constructor(private readonly rt: Runtime, private readonly failures: AuthFailureLimit) {
    this.sessions = new OperatorSessions(rt.redis, rt.config.REDIS_KEY_PREFIX, {
      idleSeconds: rt.config.BACKOFFICE_SESSION_IDLE_SECONDS,
      maxSeconds: rt.config.BACKOFFICE_SESSION_MAX_SECONDS,
    });
    this.casinoTokens = new CasinoApiTokens(rt.db.primary, rt.bus);
  }

  /** A request to the admin API that carries a session cookie (and no bearer token) is a signed-in person's. */
  static hasSession(req: Request): boolean {
    return !req.headers.authorization && operatorSessionId(req.headers.cookie) !== null;
  }

  async identify(req: Request): Promise<Identity> {
    if (req.path.startsWith('/backoffice/v1/auth/')) return { kind: 'public' };
    const bearer = bearerToken(req.headers.authorization);
    if (bearer) return this.byToken(bearer, clientAddress(req));
    const sessionId = operatorSessionId(req.headers.cookie);
    const live = sessionId ? await this.sessions.resolve(sessionId) : null;
    if (!live) throw new AppError('AUTHENTICATION_FAILED', 'Sign in first: no session, or it has ended');
    if (!SAFE_METHODS.has(req.method)) {
      const csrf = req.headers[CSRF_HEADER];
      if (typeof csrf !== 'string' || !constantTimeEqual(hashToken(csrf), live.session.csrfHash)) {
        throw new AppError('CSRF_TOKEN_INVALID', 'A state-changing request must carry the X-CSRF-Token of the session');
      }
    }
    return { kind: 'operator', accountId: live.session.accountId, role: live.session.role, scope: live.session.scope, sessionRef: live.ref };
  }

  /**
   * A casino API token or the admin token. As with game provider tokens, a token this gateway does
   * not know yet costs a database lookup, which an address may fail only so often
   * (GATEWAY_AUTH_FAILURES_PER_MINUTE): every refused token counts, and past the limit the address
   * gets 429 before the database. A token already known passes whatever its address failed.
   */
  private async byToken(token: string, address: string): Promise<Identity> {
    if (token.startsWith(CASINO_TOKEN_PREFIX)) {
      let owner = this.casinoTokens.cached(token);
      if (owner === undefined) {
        await this.failures.check(address);
        owner = await this.casinoTokens.authenticate(token);
      }
      if (owner) return { kind: 'casino-token', tokenId: owner.tokenId, providerId: owner.providerId };
    } else if (isAdminToken(token, this.rt.config)) {
      return { kind: 'admin' };
    }
    await this.failures.failed(address);
    throw new AppError('AUTHENTICATION_FAILED', 'Missing, unknown or revoked token');
  }
}
