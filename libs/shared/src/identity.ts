import { SignJWT, jwtVerify } from 'jose';
import { z } from 'zod';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from './errors';
import { currentContext } from './context';

/**
 * The gateway authenticates callers and forwards who they are as a short-lived HS256 JWT in
 * X-Relay-Identity. Services trust nothing else: a request without a valid identity is refused,
 * so a service port reached directly is useless to an attacker without INTERNAL_AUTH_SECRET.
 */
export const IDENTITY_HEADER = 'x-relay-identity';
const ISSUER = 'relay-gateway';
const AUDIENCE = 'relay-services';
const LIFETIME_SECONDS = 60;

export type OperatorRole = 'admin' | 'support' | 'finance';
export const OPERATOR_ROLES: readonly OperatorRole[] = ['admin', 'support', 'finance'];

/** Whose records a back-office caller may see: everything, one casino, or one game provider (studio). */
export type OperatorScope = { type: 'platform' } | { type: 'casino'; providerId: string } | { type: 'studio'; groupId: string };

/**
 * `operator`: a person signed in to the back office (the gateway resolved the session cookie);
 * `sessionRef` is the SHA-256 of the session id, never the id itself. `casino-token`: a casino's
 * systems with a casino API token, read access as a casino `support` account.
 */
export type Identity =
  | { kind: 'provider'; groupId: string }
  | { kind: 'admin' }
  | { kind: 'public' }
  | { kind: 'operator'; accountId: string; role: OperatorRole; scope: OperatorScope; sessionRef: string }
  | { kind: 'casino-token'; tokenId: string; providerId: string };

const scopeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('platform') }),
  z.object({ type: z.literal('casino'), providerId: z.string() }),
  z.object({ type: z.literal('studio'), groupId: z.string() }),
]);

const identitySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('provider'), groupId: z.string() }),
  z.object({ kind: z.literal('admin') }),
  z.object({ kind: z.literal('public') }),
  z.object({ kind: z.literal('operator'), accountId: z.string(), role: z.enum(['admin', 'support', 'finance']), scope: scopeSchema, sessionRef: z.string() }),
  z.object({ kind: z.literal('casino-token'), tokenId: z.string(), providerId: z.string() }),
]);

function identityCacheKey(identity: Identity): string {
  switch (identity.kind) {
    case 'provider':
      return `provider:${identity.groupId}`;
    case 'operator':
      return `operator:${identity.sessionRef}:${identity.role}:${JSON.stringify(identity.scope)}`;
    case 'casino-token':
      return `casino-token:${identity.tokenId}`;
    default:
      return identity.kind;
  }
}

declare module 'express-serve-static-core' {
  interface Request {
    identity?: Identity;
  }
}

export class IdentitySigner {
  private readonly key: Uint8Array;
  private readonly cache = new Map<string, { token: string; renewAt: number }>();

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  /** Signed tokens are reused until half their lifetime has passed; signing per request is waste. */
  async sign(identity: Identity): Promise<string> {
    const cacheKey = identityCacheKey(identity);
    const now = Date.now();
    const hit = this.cache.get(cacheKey);
    if (hit && hit.renewAt > now) return hit.token;
    const token = await new SignJWT({ ...identity })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${LIFETIME_SECONDS}s`)
      .sign(this.key);
    if (this.cache.size > 10000) this.cache.clear();
    this.cache.set(cacheKey, { token, renewAt: now + (LIFETIME_SECONDS * 1000) / 2 });
    return token;
  }
}

/**
 * Verifies with INTERNAL_AUTH_SECRET and, during a rotation, with the secrets given as `verifyOnly`
 * (INTERNAL_AUTH_SECRET_VERIFY_ONLY): identities signed with either are accepted, so gateways and
 * services can be rolled one at a time (docs/runbooks/rotating-secrets.md).
 */
export class IdentityVerifier {
  private readonly keys: Uint8Array[];
  private readonly verified = new Map<string, { identity: Identity; expiresAt: number }>();

  constructor(secret: string, verifyOnly: readonly string[] = []) {
    this.keys = [secret, ...verifyOnly].map((s) => new TextEncoder().encode(s));
  }

  private async payloadOf(token: string) {
    let last: unknown;
    for (const key of this.keys) {
      try {
        return (await jwtVerify(token, key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] })).payload;
      } catch (err) {
        last = err;
      }
    }
    throw last as Error;
  }

  async verify(token: string): Promise<Identity | null> {
    const now = Date.now();
    const hit = this.verified.get(token);
    if (hit && hit.expiresAt > now) return hit.identity;
    try {
      const payload = await this.payloadOf(token);
      const parsed = identitySchema.safeParse(payload);
      const identity: Identity | null = parsed.success ? (parsed.data as Identity) : null;
      if (identity && payload.exp) {
        if (this.verified.size > 10000) this.verified.clear();
        this.verified.set(token, { identity, expiresAt: payload.exp * 1000 });
      }
      return identity;
    } catch {
      return null;
    }
  }
}

/** Express middleware: the request must carry a gateway identity of one of the given kinds. */
export function requireIdentity(verifier: IdentityVerifier, kinds: Identity['kind'][]) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const header = req.headers[IDENTITY_HEADER];
    const identity = typeof header === 'string' ? await verifier.verify(header) : null;
    if (!identity || !kinds.includes(identity.kind)) {
      next(new AppError('AUTHENTICATION_FAILED', 'This service is reached only through the gateway'));
      return;
    }
    req.identity = identity;
    const ctx = currentContext();
    if (ctx && identity.kind === 'provider') ctx.groupId = identity.groupId;
    if (ctx && identity.kind === 'casino-token') ctx.providerId = identity.providerId;
    next();
  };
}

/** The calling game provider of a request that passed requireIdentity(['provider']). */
export function callerGroupId(req: Request): string {
  if (req.identity?.kind !== 'provider') throw new AppError('AUTHENTICATION_FAILED');
  return req.identity.groupId;
}
