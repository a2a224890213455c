import { verifyAuditChain, type AuditRow, type ChainVerdict } from '@relay/shared';
import * as audit from '../data/audit';
import type { AuditFilter } from '../data/audit';
import { authorize, type Caller } from './access';
import type { BackofficeDeps } from './deps';

/** The trail is platform-wide: only platform admins read it (it names every tenant). */
export async function listAuditTrail(deps: BackofficeDeps, caller: Caller, filter: AuditFilter, page: { limit: number; offset: number }) {
  authorize(caller, 'audit:read');
  return audit.listAudit(audit.auditQuery(deps.db, filter), page);
}

export function exportAuditTrail(deps: BackofficeDeps, caller: Caller, filter: AuditFilter): AsyncGenerator<AuditRow[]> {
  authorize(caller, 'audit:read');
  return audit.auditPages(audit.auditQuery(deps.db, filter));
}

/** Read from the primary: the replica may lag, and a lagging copy is not the record. */
export async function verifyAuditTrail(deps: BackofficeDeps, caller: Caller): Promise<ChainVerdict> {
  authorize(caller, 'audit:read');
  return verifyAuditChain(deps.db);
}
