import { appendAudit, type Knex } from '@relay/shared';
import type { Caller } from './access';
import type { BackofficeDeps } from './deps';

/** The request facts an audit entry records, gathered by the route. */
export interface RequestFacts {
  caller: Caller;
  method: string;
  route: string;
  requestId: string | null;
  clientAddress: string | null;
}

/** What a write did: a change to record, or nothing (an idempotent repeat), which leaves no entry. */
export type AuditedWrite<T> = { result: T; target: string; before: unknown; after: unknown } | { result: T; unchanged: true };

/**
 * An export takes money records (or the trail itself) out of the platform: who took which, with
 * which filters, is recorded before the first row leaves (issue 36, finding 13). Filters only: the
 * rows are the ledger's, and an export's file name says which list.
 */
export async function auditExport(deps: BackofficeDeps, facts: RequestFacts, file: string, filters: Record<string, unknown>): Promise<void> {
  const named = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined));
  // An entry with nothing written beside it: audited's transaction holds the entry alone.
  await audited(deps, facts, 'export', async () => ({ result: undefined, target: `export:${file}`, before: null, after: { filters: named } }));
}

/**
 * Runs a write and records it in the audit trail in the same database transaction: the entry
 * exists exactly when the change does.
 */
export async function audited<T>(
  deps: BackofficeDeps,
  facts: RequestFacts,
  action: string,
  write: (trx: Knex.Transaction) => Promise<AuditedWrite<T>>,
): Promise<T> {
  return deps.db.transaction(async (trx) => {
    const written = await write(trx);
    if ('unchanged' in written) return written.result;
    const { result, target, before, after } = written;
    await appendAudit(trx, {
      actorType: facts.caller.actorType,
      actorId: facts.caller.actorId,
      method: facts.method,
      route: facts.route,
      requestId: facts.requestId,
      clientAddress: facts.clientAddress,
      action,
      target,
      before,
      after,
    });
    return result;
  });
}
