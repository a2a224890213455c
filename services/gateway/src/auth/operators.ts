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
import { CasinoApiTokens } from './casino-api-tokens';
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

  constructor(private readonly rt: Runtime) {
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
    if (bearer) return this.byToken(bearer);
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

  private async byToken(token: string): Promise<Identity> {
    if (token.startsWith(CASINO_TOKEN_PREFIX)) {
      const owner = await this.casinoTokens.authenticate(token);
      if (owner) return { kind: 'casino-token', tokenId: owner.tokenId, providerId: owner.providerId };
    } else if (isAdminToken(token, this.rt.config)) {
      return { kind: 'admin' };
    }
    throw new AppError('AUTHENTICATION_FAILED', 'Missing, unknown or revoked token');
  }
}
