import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The audit trail: one append-only table of every write made by a person or a token through the
 * admin API or the back office. Each row carries the hash of the row before it, so an edited or
 * deleted row breaks the chain that verifyAuditChain walks. PostgreSQL refuses UPDATE, DELETE and
 * TRUNCATE on the table (a trigger); the chain catches what someone with the power to drop the
 * trigger does anyway.
 */
export type AuditActorType = 'admin-token' | 'operator' | 'casino-token' | 'system';

export interface AuditEntry {
  actorType: AuditActorType;
  actorId: string;
  actorLabel?: string | null;
  clientAddress?: string | null;
  method: string;
  route: string;
  requestId?: string | null;
  action: string;
  target?: string | null;
  before?: unknown;
  after?: unknown;
}

export interface AuditRow extends Required<Omit<AuditEntry, 'before' | 'after'>> {
  id: string;
  occurredAt: Date;
  before: unknown;
  after: unknown;
  prevHash: string;
  hash: string;
}

export const AUDIT_GENESIS_HASH = '0'.repeat(64);
/** Any number: it only has to be the same wherever the chain is extended. */
const AUDIT_LOCK_KEY = 7_318_001;

const SECRET_KEY = /(secret|password|token|launch_?key|hash|_enc$|totp|recovery|csrf|session_?id)/i;

/** Secret-bearing fields are replaced, at any depth, before a record reaches the trail. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_KEY.test(k) && v !== null && v !== undefined ? '[redacted]' : redactSecrets(v)]),
    );
  }
  return value;
}

/** JSON with keys sorted at every depth: the text a row's hash covers does not depend on jsonb's key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function auditRowHash(prevHash: string, row: Omit<AuditRow, 'id' | 'hash' | 'prevHash'>): string {
  const body = canonical({
    occurredAt: row.occurredAt.toISOString(),
    actorType: row.actorType,
    actorId: row.actorId,
    actorLabel: row.actorLabel,
    clientAddress: row.clientAddress,
    method: row.method,
    route: row.route,
    requestId: row.requestId,
    action: row.action,
    target: row.target,
    before: row.before,
    after: row.after,
  });
  return createHash('sha256').update(`${prevHash}\n${body}`).digest('hex');
}

/**
 * Appends one entry inside the caller's transaction, so the entry commits with the change it
 * records or not at all. The advisory lock serialises appends: each reads the hash of the last
 * committed row.
 */
export async function appendAudit(trx: Knex.Transaction, entry: AuditEntry): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(?)', [AUDIT_LOCK_KEY]);
  const last = await trx('audit_log').orderBy('id', 'desc').first('hash');
  const prevHash: string = last?.hash ?? AUDIT_GENESIS_HASH;
  const row = {
    occurredAt: new Date(),
    actorType: entry.actorType,
    actorId: entry.actorId,
    actorLabel: entry.actorLabel ?? null,
    clientAddress: entry.clientAddress ?? null,
    method: entry.method,
    route: entry.route,
    requestId: entry.requestId ?? null,
    action: entry.action,
    target: entry.target ?? null,
    // Through JSON once, so what is hashed is exactly what jsonb gives back (no undefined, no Dates).
    before: entry.before === undefined ? null : JSON.parse(JSON.stringify(redactSecrets(entry.before))),
    after: entry.after === undefined ? null : JSON.parse(JSON.stringify(redactSecrets(entry.after))),
  };
  await trx('audit_log').insert({
    occurred_at: row.occurredAt,
    actor_type: row.actorType,
    actor_id: row.actorId,
    actor_label: row.actorLabel,
    client_address: row.clientAddress,
    method: row.method,
    route: row.route,
    request_id: row.requestId,
    action: row.action,
    target: row.target,
    before: row.before === null ? null : JSON.stringify(row.before),
    after: row.after === null ? null : JSON.stringify(row.after),
    prev_hash: prevHash,
    hash: auditRowHash(prevHash, row),
  });
}

export function auditRowFromDb(r: Record<string, any>): AuditRow {
  return {
    id: String(r.id),
    occurredAt: r.occurred_at,
    actorType: r.actor_type,
    actorId: r.actor_id,
    actorLabel: r.actor_label,
    clientAddress: r.client_address,
    method: r.method,
    route: r.route,
    requestId: r.request_id,
    action: r.action,
    target: r.target,
    before: r.before,
    after: r.after,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

export interface ChainVerdict {
  valid: boolean;
  rowsChecked: number;
  /** The first row whose stored hash or link does not match. */
  brokenAt: { id: string; reason: 'edited' | 'link' } | null;
  /**
   * The last row checked. The chain cannot show rows cut off its end: keep the head somewhere
   * else (a ticket, an export) and compare it with a later verification.
   */
  head: { id: string; hash: string } | null;
}

/**
 * Walks the chain in id order, in pages. An edited row no longer matches its own hash; a deleted
 * row leaves the next row pointing at a hash that is not the previous row's.
 */
export async function verifyAuditChain(db: Knex, pageSize = 1000): Promise<ChainVerdict> {
  let prevHash = AUDIT_GENESIS_HASH;
  let afterId = '0';
  let rowsChecked = 0;
  const head = () => (rowsChecked > 0 ? { id: afterId, hash: prevHash } : null);
  for (;;) {
    const page = await db('audit_log').where('id', '>', afterId).orderBy('id').limit(pageSize).select('*');
    for (const raw of page) {
      const row = auditRowFromDb(raw);
      rowsChecked += 1;
      if (row.prevHash !== prevHash) return { valid: false, rowsChecked, brokenAt: { id: row.id, reason: 'link' }, head: head() };
      if (auditRowHash(row.prevHash, row) !== row.hash) return { valid: false, rowsChecked, brokenAt: { id: row.id, reason: 'edited' }, head: head() };
      prevHash = row.hash;
      afterId = row.id;
    }
    if (page.length < pageSize) return { valid: true, rowsChecked, brokenAt: null, head: head() };
  }
}
