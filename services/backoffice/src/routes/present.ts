import type { AuditRow } from '@relay/shared';
import type { AccountRecord } from '../data/accounts';
import type { CasinoTokenRecord } from '../data/casinoTokens';

export function presentAccount(a: AccountRecord) {
  return { ...a, createdAt: a.createdAt.toISOString(), updatedAt: a.updatedAt.toISOString() };
}

export function presentToken(t: CasinoTokenRecord) {
  return { ...t, createdAt: t.createdAt.toISOString(), revokedAt: t.revokedAt ? t.revokedAt.toISOString() : null };
}

export function presentAudit(r: AuditRow) {
  return { ...r, occurredAt: r.occurredAt.toISOString() };
}
