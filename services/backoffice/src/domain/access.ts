import { AppError, type Identity, type Knex, type OperatorRole, type OperatorScope } from '@relay/shared';

/**
 * Who is calling the back office, as the gateway vouched for it. The ADMIN_TOKEN counts as a
 * platform admin (it bootstraps the first account); a casino API token as a casino `support`
 * account.
 */
export interface Caller {
  actorType: 'admin-token' | 'operator' | 'casino-token';
  actorId: string;
  role: OperatorRole;
  scope: OperatorScope;
  sessionRef?: string;
}

export function callerOf(identity: Identity | undefined): Caller {
  switch (identity?.kind) {
    case 'admin':
      return { actorType: 'admin-token', actorId: 'ADMIN_TOKEN', role: 'admin', scope: { type: 'platform' } };
    case 'operator':
      return { actorType: 'operator', actorId: identity.accountId, role: identity.role, scope: identity.scope, sessionRef: identity.sessionRef };
    case 'casino-token':
      return { actorType: 'casino-token', actorId: identity.tokenId, role: 'support', scope: { type: 'casino', providerId: identity.providerId } };
    default:
      throw new AppError('AUTHENTICATION_FAILED', 'Sign in first');
  }
}

/**
 * What each role may do. Platform-wide actions (accounts, API tokens, the audit trail) belong to
 * platform admins only; reading the directory of casinos and game providers is open to every
 * role, always filtered by scope.
 */
export type Permission =
  | 'accounts:manage'
  | 'casino-tokens:manage'
  | 'audit:read'
  | 'directory:read'
  | 'money:read'
  | 'reports:read'
  | 'reconciliation:act'
  | 'wins:review'
  | 'wins:thresholds'
  | 'free-rounds:read'
  | 'free-rounds:manage';

/** A person (or the ADMIN_TOKEN), never a casino API token: tokens read, they do not decide (free-round awards aside). */
const person = (c: Caller) => c.actorType !== 'casino-token';

const GRANTS: Record<Permission, (c: Caller) => boolean> = {
  'accounts:manage': (c) => c.role === 'admin' && c.scope.type === 'platform',
  'casino-tokens:manage': (c) => c.role === 'admin' && c.scope.type === 'platform',
  'audit:read': (c) => c.role === 'admin' && c.scope.type === 'platform',
  'directory:read': () => true,
  // The money views: search and stories for every role, in its scope; reports for finance and admins.
  'money:read': () => true,
  'reports:read': (c) => c.role === 'admin' || c.role === 'finance',
  'reconciliation:act': (c) => person(c) && (c.role === 'admin' || c.role === 'support'),
  'wins:review': (c) => person(c) && (c.role === 'admin' || c.role === 'finance'),
  'wins:thresholds': (c) => c.role === 'admin' && c.scope.type === 'platform',
  // Free-round awards: every role reads them in its scope. Granting and cancelling them is the
  // casino's business: its own systems (a casino API token: the one write a token makes), and the
  // people who act on players' accounts (admin and support) of the casino or the platform. Finance
  // reads; a studio only sees the awards of its games.
  'free-rounds:read': () => true,
  'free-rounds:manage': (c) => c.scope.type !== 'studio' && (c.actorType === 'casino-token' || c.role === 'admin' || c.role === 'support'),
};

export function authorize(caller: Caller, permission: Permission): void {
  if (!GRANTS[permission](caller)) throw new AppError('PERMISSION_DENIED', 'Your role or scope does not allow this');
}

/** The columns that name a record's casino and game provider, for scopeFilter. */
export interface ScopeColumns {
  providerId?: string;
  groupId?: string;
  /** A text[] column of game providers, for a record that concerns several (a free-round award's games). */
  groupIds?: string;
}

/**
 * The one place back-office reads are narrowed to the caller's scope: every query over tenant
 * records passes through here before it runs. A table that has no column for the caller's kind
 * of scope yields nothing rather than everything.
 */
export function scopeFilter<Q extends Knex.QueryBuilder>(query: Q, scope: OperatorScope, columns: ScopeColumns): Q {
  switch (scope.type) {
    case 'platform':
      return query;
    case 'casino':
      return (columns.providerId ? query.where(columns.providerId, scope.providerId) : query.whereRaw('false')) as Q;
    case 'studio':
      if (columns.groupId) return query.where(columns.groupId, scope.groupId) as Q;
      return (columns.groupIds ? query.whereRaw('?? @> ARRAY[?]::text[]', [columns.groupIds, scope.groupId]) : query.whereRaw('false')) as Q;
  }
}
