import type { Knex, OperatorScope } from '@relay/shared';
import { scopeFilter } from '../domain/access';
import { bounded } from './bounded';
import { TRANSACTION_COLUMNS } from './ledger';
import { streamed } from './streamed';

/**
 * Flagged wins, derived at read time like the reconciliation queue: a paid credit (CASH_IN
 * SUCCESS) whose amount is above its casino's payout threshold for the currency, or whose
 * multiplier is above its casino's multiplier threshold. A casino without thresholds of its own
 * uses the defaults. Changing a threshold re-flags history at once; only reviews are stored.
 */
export interface Thresholds {
  multiplierOver: string;
  /** Currency code to amount; '*' for every other currency. */
  payoutOver: Record<string, string>;
}

export const DEFAULT_THRESHOLDS: Thresholds = { multiplierOver: '500', payoutOver: { '*': '10000' } };

export interface WinFilter {
  providerId?: string;
  groupId?: string;
  currency?: string;
  transactionId?: string;
  state?: 'FLAGGED' | 'REVIEWED';
  from?: Date;
  to?: Date;
}

function flaggedQuery(read: Knex, scope: OperatorScope, f: WinFilter): Knex.QueryBuilder {
  const defaults = JSON.stringify(DEFAULT_THRESHOLDS.payoutOver);
  const payoutOver = `coalesce((th.payout_over->>t.currency)::numeric, (th.payout_over->>'*')::numeric, (?::jsonb->>t.currency)::numeric, (?::jsonb->>'*')::numeric)`;
  const multiplierOver = 'coalesce(th.multiplier_over, ?::numeric)';
  const q = scopeFilter(read('transactions as t'), scope, { providerId: 't.provider_id', groupId: 't.group_id' })
    .leftJoin('win_flag_thresholds as th', 'th.provider_id', 't.provider_id')
    .leftJoin('win_reviews as r', 'r.transaction_pk', 't.id')
    .where('t.category', 'CASH_IN')
    .where('t.status', 'SUCCESS')
    .where((w) => w.whereRaw(`t.amount > ${payoutOver}`, [defaults, defaults]).orWhereRaw(`t.applied_multiplier > ${multiplierOver}`, [DEFAULT_THRESHOLDS.multiplierOver]))
    .select(TRANSACTION_COLUMNS.map((c) => `t.${c}`))
    .select(read.raw(`${payoutOver}::text as payout_over, ${multiplierOver}::text as multiplier_over`, [defaults, defaults, DEFAULT_THRESHOLDS.multiplierOver]))
    .select('r.note as review_note', 'r.reviewed_by', 'r.reviewed_at');
  if (f.providerId) q.where('t.provider_id', f.providerId);
  if (f.groupId) q.where('t.group_id', f.groupId);
  if (f.currency) q.where('t.currency', f.currency);
  if (f.transactionId) q.where('t.transaction_id', f.transactionId);
  if (f.state === 'FLAGGED') q.whereNull('r.transaction_pk');
  if (f.state === 'REVIEWED') q.whereNotNull('r.transaction_pk');
  if (f.from) q.where('t.created_at', '>=', f.from);
  if (f.to) q.where('t.created_at', '<', new Date(f.to.getTime() + 1));
  return q;
}

export async function listFlagged(read: Knex, scope: OperatorScope, f: WinFilter, page: { limit: number; offset: number }) {
  const base = flaggedQuery(read, scope, f);
  const [rows, [{ total }]] = await Promise.all([
    bounded<Record<string, unknown>[]>(base.clone().orderBy([{ column: 't.created_at', order: 'desc' }, { column: 't.id', order: 'asc' }]).limit(page.limit).offset(page.offset)),
    bounded<{ total: string }[]>(read.from(base.clone().as('f')).count({ total: '*' })),
  ]);
  return { rows, total: Number(total) };
}

export function streamFlagged(read: Knex, scope: OperatorScope, f: WinFilter): AsyncIterable<Record<string, unknown>> {
  return streamed(flaggedQuery(read, scope, f).orderBy([{ column: 't.created_at', order: 'asc' }, { column: 't.id', order: 'asc' }]));
}

/** Records a review once: a second review of the same win answers undefined (one atomic statement). */
export async function saveReview(trx: Knex.Transaction, r: { transaction_pk: string; provider_id: string; group_id: string; note: string; reviewed_by: string }) {
  const rows = await trx('win_reviews').insert(r).onConflict('transaction_pk').ignore().returning('*');
  return rows[0] as (typeof r & { reviewed_at: Date }) | undefined;
}

export async function findThresholds(db: Knex, providerId: string): Promise<Thresholds | null> {
  const row = await db('win_flag_thresholds').where({ provider_id: providerId }).first();
  return row ? { multiplierOver: String(row.multiplier_over), payoutOver: row.payout_over as Record<string, string> } : null;
}

export async function saveThresholds(trx: Knex.Transaction, providerId: string, t: Thresholds, by: string): Promise<void> {
  await trx('win_flag_thresholds')
    .insert({ provider_id: providerId, multiplier_over: t.multiplierOver, payout_over: JSON.stringify(t.payoutOver), updated_by: by, updated_at: trx.fn.now() })
    .onConflict('provider_id')
    .merge();
}

/** Every casino with its own thresholds, or nulls where it has none (the defaults apply), by providerId. */
export function listThresholds(db: Knex): Promise<Record<string, unknown>[]> {
  return db('casinos as c')
    .leftJoin('win_flag_thresholds as th', 'th.provider_id', 'c.provider_id')
    .select('c.provider_id', 'c.name', 'c.status', 'th.multiplier_over', 'th.payout_over', 'th.updated_by', 'th.updated_at')
    .orderBy('c.provider_id');
}

export async function casinoExists(db: Knex, providerId: string): Promise<boolean> {
  return Boolean(await db('casinos').where({ provider_id: providerId }).first('provider_id'));
}
