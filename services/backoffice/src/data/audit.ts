import { auditRowFromDb, type AuditRow, type Knex } from '@relay/shared';

export interface AuditFilter {
  actorId?: string;
  actorType?: string;
  action?: string;
  target?: string;
  from?: Date;
  to?: Date;
}

export function auditQuery(db: Knex, filter: AuditFilter): Knex.QueryBuilder {
  const q = db('audit_log');
  if (filter.actorId) q.where('actor_id', filter.actorId);
  if (filter.actorType) q.where('actor_type', filter.actorType);
  if (filter.action) q.where('action', filter.action);
  if (filter.target) q.where('target', filter.target);
  if (filter.from) q.where('occurred_at', '>=', filter.from);
  if (filter.to) q.where('occurred_at', '<=', filter.to);
  return q;
}

export async function listAudit(query: Knex.QueryBuilder, page: { limit: number; offset: number }): Promise<{ total: number; rows: AuditRow[] }> {
  const [{ count }] = await query.clone().count<{ count: string }[]>('* as count');
  const rows = await query.clone().orderBy('id', 'desc').limit(page.limit).offset(page.offset).select('*');
  return { total: Number(count), rows: rows.map(auditRowFromDb) };
}

/** Rows oldest first, a page at a time, for the CSV export (constant memory whatever the length). */
export async function* auditPages(query: Knex.QueryBuilder, pageSize = 1000): AsyncGenerator<AuditRow[]> {
  let afterId = '0';
  for (;;) {
    const rows = await query.clone().where('id', '>', afterId).orderBy('id').limit(pageSize).select('*');
    if (rows.length === 0) return;
    yield rows.map(auditRowFromDb);
    afterId = String(rows[rows.length - 1].id);
    if (rows.length < pageSize) return;
  }
}
