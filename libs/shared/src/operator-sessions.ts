import { parse as parseCookie } from 'cookie';
import type { Redis } from 'ioredis';
import { hashToken, randomSecret } from './crypto';
import type { OperatorRole, OperatorScope } from './identity';

/** The cookie that carries a back-office session id, and the header that must echo its CSRF token. */
export const OPERATOR_SESSION_COOKIE = 'relay_bo_session';
export const OPERATOR_CSRF_COOKIE = 'relay_bo_csrf';
export const CSRF_HEADER = 'x-csrf-token';

export interface OperatorSession {
  accountId: string;
  role: OperatorRole;
  scope: OperatorScope;
  /** SHA-256 of the CSRF token handed to the browser with the session. */
  csrfHash: string;
  createdAt: number;
  absoluteExpiresAt: number;
}

export interface SessionLimits {
  idleSeconds: number;
  maxSeconds: number;
}

/**
 * Back-office sessions live in Redis under the SHA-256 of their id (a dump of Redis holds no
 * usable session id). The key's time-to-live is the idle time-out, renewed on every use but never
 * past the absolute lifetime. Each account keeps the set of its sessions, so disabling an account
 * or signing out ends them at once: the gateway reads the session on every request.
 */
export class OperatorSessions {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: SessionLimits,
  ) {}

  async create(input: Pick<OperatorSession, 'accountId' | 'role' | 'scope'>): Promise<{ sessionId: string; csrfToken: string; ref: string; expiresAt: Date }> {
    const sessionId = randomSecret(32);
    const csrfToken = randomSecret(24);
    const ref = hashToken(sessionId);
    const now = Date.now();
    const session: OperatorSession = { ...input, csrfHash: hashToken(csrfToken), createdAt: now, absoluteExpiresAt: now + this.limits.maxSeconds * 1000 };
    await this.redis
      .multi()
      .set(this.sessionKey(ref), JSON.stringify(session), 'PX', this.limits.idleSeconds * 1000)
      .sadd(this.accountKey(input.accountId), ref)
      .pexpire(this.accountKey(input.accountId), this.limits.maxSeconds * 1000)
      .exec();
    return { sessionId, csrfToken, ref, expiresAt: new Date(session.absoluteExpiresAt) };
  }

  /** The live session of a session id, renewing its idle time-out; null when unknown, idle too long or past its lifetime. */
  async resolve(sessionId: string): Promise<{ ref: string; session: OperatorSession } | null> {
    const ref = hashToken(sessionId);
    const key = this.sessionKey(ref);
    const text = await this.redis.get(key);
    if (!text) return null;
    const session = JSON.parse(text) as OperatorSession;
    const left = session.absoluteExpiresAt - Date.now();
    if (left <= 0) {
      await this.redis.del(key);
      return null;
    }
    await this.redis.pexpire(key, Math.min(this.limits.idleSeconds * 1000, left));
    return { ref, session };
  }

  async revoke(ref: string, accountId?: string): Promise<void> {
    const multi = this.redis.multi().del(this.sessionKey(ref));
    if (accountId) multi.srem(this.accountKey(accountId), ref);
    await multi.exec();
  }

  /** Every session of an account ends now (disabled, role or scope changed, second factor reset). */
  async revokeAccount(accountId: string): Promise<number> {
    const refs = await this.redis.smembers(this.accountKey(accountId));
    const multi = this.redis.multi();
    for (const ref of refs) multi.del(this.sessionKey(ref));
    multi.del(this.accountKey(accountId));
    await multi.exec();
    return refs.length;
  }

  private sessionKey(ref: string): string {
    return `${this.prefix}:bo:session:${ref}`;
  }

  private accountKey(accountId: string): string {
    return `${this.prefix}:bo:account-sessions:${accountId}`;
  }
}

/** The session id a request's Cookie header carries, if any. */
export function operatorSessionId(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  const value = parseCookie(cookieHeader)[OPERATOR_SESSION_COOKIE];
  return value && /^[\w-]{20,100}$/.test(value) ? value : null;
}

/** The address the gateway appended last to X-Forwarded-For (services are reached only through it). */
export function clientAddress(forwardedFor: string | string[] | undefined, socketAddress: string | undefined): string | null {
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const last = header?.split(',').map((part) => part.trim()).filter(Boolean).at(-1);
  return last ?? socketAddress ?? null;
}
