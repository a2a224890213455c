import type { AuditRow } from '@relay/shared';
import type { AccountRecord } from '../data/accounts';
import type { CasinoTokenRecord } from '../data/casinoTokens';

/** Named fields only: a record read with its credentials must not carry them out. */
export function presentAccount(a: AccountRecord) {
  return {
    accountId: a.accountId,
    email: a.email,
    displayName: a.displayName,
    role: a.role,
    scope: a.scope,
    status: a.status,
    secondFactorEnrolled: a.secondFactorEnrolled,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

export function presentToken(t: CasinoTokenRecord) {
  return { tokenId: t.tokenId, providerId: t.providerId, name: t.name, createdBy: t.createdBy, createdAt: t.createdAt.toISOString(), revokedAt: t.revokedAt ? t.revokedAt.toISOString() : null };
}

export function presentAudit(r: AuditRow) {
  return { ...r, occurredAt: r.occurredAt.toISOString() };
}
