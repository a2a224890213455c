import type { Knex, OperatorScope } from '@relay/shared';
import { scopeFilter } from '../domain/access';
import { bounded } from './bounded';
import { streamed } from './streamed';

/**
 * The reconciliation queue, derived from the ledger at read time. An item is a row of the ledger
 * that needs a person now; there is no copy to keep in step, so a late row cannot be missed and
 * an item disappears the moment the ledger resolves it (the game repeated the call, the round
 * settled). Only what a person decided (acknowledged, resolved, a note) is stored, keyed by the
 * item (kind, providerId, recordId). Each kind reads a partial index from migration 005 that holds
 * only the rows that can be items.
 */
export const ITEM_KINDS = ['PENDING_ABANDONED', 'CREDIT_OWED', 'ROUND_OPEN', 'DEBIT_UNCLEAR'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** Failures of a debit after which the casino may hold the money: 5xx, no usable answer, reset, time-out. */
export const UNCLEAR_DEBIT_CODES = ['CASHOUT_FAILED', 'PROVIDER_API_FAILURE', 'INVALID_PROVIDER_RESPONSE', 'INTEGRATION_TIMED_OUT'];

export interface Thresholds {
  pendingSeconds: number;
  openRoundSeconds: number;
}

export interface ItemFilter {
  kind?: ItemKind;
  providerId?: string;
  groupId?: string;
  recordId?: string;
  state?: 'OPEN' | 'ACKNOWLEDGED' | 'RESOLVED';
}

const TX_COLUMNS = `t.provider_id, t.group_id, t.game_id, t.player_id, t.transaction_id as record_id, t.round_id, t.transaction_id,
  t.category, t.currency, t.amount, t.error_code`;

function kindQuery(read: Knex, scope: OperatorScope, kind: ItemKind, th: Thresholds): Knex.QueryBuilder {
  if (kind === 'ROUND_OPEN') {
    return scopeFilter(read('rounds as r'), scope, { providerId: 'r.provider_id', groupId: 'r.group_id' })
      .where('r.status', 'OPEN')
      .whereRaw('r.opened_at < now() - make_interval(secs => ?)', [th.openRoundSeconds])
      .select(read.raw(`'ROUND_OPEN' as kind, r.provider_id, r.group_id, r.game_id, r.player_id, r.round_id as record_id, r.round_id,
        r.bet_transaction_id as transaction_id, 'CASH_OUT' as category, r.currency, r.bet_amount as amount, null as error_code, r.opened_at as since`));
  }
  const t = scopeFilter(read('transactions as t'), scope, { providerId: 't.provider_id', groupId: 't.group_id' });
  const paidFor = (previous: string) =>
    read('transactions as s').whereRaw(`s.provider_id = t.provider_id and s.previous_transaction_id = ${previous}`).where('s.category', 'CASH_IN').where('s.status', 'SUCCESS');
  switch (kind) {
    case 'PENDING_ABANDONED':
      return t.where('t.status', 'PENDING')
        .whereRaw('t.claimed_at < now() - make_interval(secs => ?)', [th.pendingSeconds])
        .select(read.raw(`'PENDING_ABANDONED' as kind, ${TX_COLUMNS}, t.claimed_at as since`));
    case 'CREDIT_OWED':
      // A settling credit that failed, and no credit for the same bet has succeeded since.
      return t.where('t.status', 'FAILED').where('t.category', 'CASH_IN').whereNotNull('t.previous_transaction_id')
        .whereNotExists(paidFor('t.previous_transaction_id'))
        .select(read.raw(`'CREDIT_OWED' as kind, ${TX_COLUMNS}, t.created_at as since`));
    case 'DEBIT_UNCLEAR':
      // A debit failed in a way that may have moved the money, and it was not refunded since.
      return t.where('t.status', 'FAILED').where('t.category', 'CASH_OUT').whereIn('t.error_code', UNCLEAR_DEBIT_CODES)
        .whereNotExists(paidFor('t.transaction_id'))
        .select(read.raw(`'DEBIT_UNCLEAR' as kind, ${TX_COLUMNS}, t.created_at as since`));
  }
}

/** Every live item in scope joined with its decision, if any. */
function itemsQuery(read: Knex, scope: OperatorScope, th: Thresholds, filter: ItemFilter): Knex.QueryBuilder {
  const kinds = filter.kind ? [filter.kind] : [...ITEM_KINDS];
  const parts = kinds.map((k) => {
    const q = kindQuery(read, scope, k, th);
    const alias = k === 'ROUND_OPEN' ? 'r' : 't';
    if (filter.providerId) q.where(`${alias}.provider_id`, filter.providerId);
    if (filter.groupId) q.where(`${alias}.group_id`, filter.groupId);
    if (filter.recordId) q.where(`${alias}.${k === 'ROUND_OPEN' ? 'round_id' : 'transaction_id'}`, filter.recordId);
    return q;
  });
  const union = parts.length === 1 ? parts[0] : parts[0].unionAll(parts.slice(1), true);
  const q = read.from(union.as('i'))
    .leftJoin('reconciliation_decisions as d', (j) => j.on('d.kind', 'i.kind').andOn('d.provider_id', 'i.provider_id').andOn('d.record_id', 'i.record_id'));
  if (filter.state === 'OPEN') q.whereNull('d.state');
  else if (filter.state) q.where('d.state', filter.state);
  return q;
}

const ITEM_SELECT = `i.*, coalesce(d.state, 'OPEN') as state, d.note, d.decided_by, d.decided_at,
  floor(extract(epoch from (now() - i.since)))::bigint as age_seconds`;

export async function listItems(read: Knex, scope: OperatorScope, th: Thresholds, filter: ItemFilter, page: { limit: number; offset: number }) {
  const [rows, counts] = await Promise.all([
    bounded<Record<string, unknown>[]>(itemsQuery(read, scope, th, filter).select(read.raw(ITEM_SELECT)).orderBy([{ column: 'i.since' }, { column: 'i.kind' }, { column: 'i.record_id' }]).limit(page.limit).offset(page.offset)),
    countItems(read, scope, th, filter),
  ]);
  return { rows, counts };
}

export function streamItems(read: Knex, scope: OperatorScope, th: Thresholds, filter: ItemFilter): AsyncIterable<Record<string, unknown>> {
  return streamed(itemsQuery(read, scope, th, filter).select(read.raw(ITEM_SELECT)).orderBy([{ column: 'i.since' }, { column: 'i.kind' }, { column: 'i.record_id' }]));
}

/** Counts by kind and age bucket: for the list's totals and for the Prometheus gauge. */
export async function countItems(read: Knex, scope: OperatorScope, th: Thresholds, filter: ItemFilter): Promise<{ kind: ItemKind; age: string; count: number }[]> {
  const rows = await bounded<{ kind: ItemKind; age: string; count: string }[]>(
    itemsQuery(read, scope, th, filter)
      .select('i.kind', read.raw(`case when i.since > now() - interval '1 hour' then 'lt_1h' when i.since > now() - interval '24 hours' then '1h_24h' else 'gt_24h' end as age`))
      .count({ count: '*' })
      .groupBy('i.kind', 'age'),
  );
  return rows.map((r) => ({ kind: r.kind, age: r.age, count: Number(r.count) }));
}

export interface Decision {
  kind: string;
  provider_id: string;
  record_id: string;
  group_id: string;
  state: 'ACKNOWLEDGED' | 'RESOLVED';
  note: string;
  decided_by: string;
  decided_at: Date;
}

export async function findDecision(db: Knex, scope: OperatorScope, kind: string, providerId: string, recordId: string): Promise<Decision | undefined> {
  return scopeFilter(db('reconciliation_decisions as d'), scope, { providerId: 'd.provider_id', groupId: 'd.group_id' })
    .where({ 'd.kind': kind, 'd.provider_id': providerId, 'd.record_id': recordId })
    .first();
}

/**
 * Writes a decision only if the item is still in one of the states it may move from: a concurrent
 * decision makes this answer undefined instead of overwriting it (one atomic statement).
 */
export async function saveDecision(trx: Knex.Transaction, d: Omit<Decision, 'decided_at'>, fromDecided: string[]): Promise<Decision | undefined> {
  const insert = trx('reconciliation_decisions').insert({ ...d, decided_at: trx.fn.now() }).onConflict(['kind', 'provider_id', 'record_id']);
  const rows = fromDecided.length === 0
    ? await insert.ignore().returning('*')
    : await insert.merge(['state', 'note', 'decided_by', 'decided_at']).where('reconciliation_decisions.state', 'in', fromDecided).returning('*');
  return rows[0] as Decision | undefined;
}
