import { AppError, ledgerSource, type Knex, type OperatorScope } from '@relay/shared';
import { scopeFilter } from '../domain/access';
import { bounded } from './bounded';
import { ROUND_COLUMNS, scopedLedger, TRANSACTION_COLUMNS, type LedgerFilter, type LedgerTable } from './ledger';
import { streamed } from './streamed';

/**
 * Search over rounds and transactions across every studio and casino in scope, newest first,
 * walked with a keyset cursor: (created_at DESC, id ASC), the order of the indexes
 * (created_at DESC, id), (provider_id, created_at DESC, id) and (group_id, created_at DESC, id).
 * The cursor carries created_at at microsecond precision (as text), so rows created in the same
 * millisecond are neither skipped nor repeated.
 */

export type SortOrder = 'asc' | 'desc';

export interface Cursor {
  at: string;
  id: string;
  /** The order the cursor was made for: a cursor walks one way only. */
  order: SortOrder;
}

export const SEARCH_COLUMNS: Record<LedgerTable, readonly string[]> = { transactions: TRANSACTION_COLUMNS, rounds: ROUND_COLUMNS };

const CURSOR_AT = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.at, c.id, c.order])).toString('base64url');
}

export function decodeCursor(text: string, order: SortOrder): Cursor {
  try {
    const [at, id, made] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'string' && typeof id === 'string' && AT.test(at) && UUID.test(id) && made === order) return { at, id, order };
  } catch {
    // falls through to the refusal
  }
  throw new AppError('Bad Request', 'Validation failed: cursor: not a cursor this search answered');
}

/**
 * One page, newest first (desc) or oldest first (asc). The id breaks ties against the time's
 * direction, so both orders are the same index read forwards or backwards.
 */
export async function searchPage(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter, limit: number, order: SortOrder, after?: Cursor) {
  const q = scopedLedger(read, table, scope, filter).select(SEARCH_COLUMNS[table].map((c) => `${table}.${c}`)).select(read.raw(`${CURSOR_AT} as cursor_at`));
  const [before, beyond, idAfter] = order === 'desc' ? (['<=', '<', '>'] as const) : (['>=', '>', '<'] as const);
  if (after) {
    // Written so the index range on created_at does the work and the OR only trims its edge.
    q.where(`${table}.created_at`, before, after.at).where((w) => w.where(`${table}.created_at`, beyond, after.at).orWhere(`${table}.id`, idAfter, after.id));
  }
  const sort = [{ column: `${table}.created_at`, order }, { column: `${table}.id`, order: order === 'desc' ? 'asc' : 'desc' }];
  const rows = await bounded<Record<string, unknown>[]>(q.orderBy(sort).limit(limit + 1));
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, next: more && last ? encodeCursor({ at: String(last.cursor_at), id: String(last.id), order }) : null };
}

/**
 * Exact totals of everything the filters match (not just the page): a count, and sums per currency
 * in NUMERIC. From the daily rollups when every filter is one they keep (libs/shared
 * ledger-totals, docs/ledger.md "Exact totals"): the cost is the days of the range and the rows
 * of its live parts (today, partial edge days, days not counted or marked stale), not the
 * caller's history. Any other filter (player, round, session, transactionId, reason, amount
 * range) is selective and indexed: counted live, under the back office's time limit.
 */
export async function searchTotals(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter) {
  const source = rollupSource(read, table, scope, filter);
  if (!source) return liveTotals(read, table, scope, filter);
  const sums = table === 'transactions'
    ? ['sum(s.amount)::text AS amount']
    : ['sum(s.bet_amount)::text AS bet_amount', 'coalesce(sum(s.payout_amount), 0)::text AS payout_amount'];
  const { rows } = await bounded<{ rows: Record<string, string>[] }>(read.raw(
    `SELECT s.currency, sum(s.n)::text AS count, ${sums.join(', ')} FROM (?) s GROUP BY s.currency ORDER BY s.currency`,
    [source],
  ));
  return rows;
}

/** The filters the rollups keep (the rest must be unset); a rounds search ignores category (data/ledger). */
const ROLLUP_FILTERS: readonly (keyof LedgerFilter)[] = ['groupId', 'providerId', 'gameId', 'currency', 'category', 'status', 'from', 'to'];
const ROLLUP_COLUMN: Partial<Record<keyof LedgerFilter, string>> = {
  groupId: 'group_id', providerId: 'provider_id', gameId: 'game_id', currency: 'currency', category: 'category', status: 'status',
};

/** The rollup-backed aggregate of a search by currency, or null when a filter is not one the rollups keep. */
export function rollupSource(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter): Knex.Raw | null {
  const set = (Object.keys(filter) as (keyof LedgerFilter)[]).filter((k) => filter[k] !== undefined);
  if (!set.every((k) => ROLLUP_FILTERS.includes(k))) return null;
  return ledgerSource(read, {
    table,
    from: filter.from,
    // As the list: "to" includes its whole millisecond.
    until: filter.to ? new Date(filter.to.getTime() + 1) : undefined,
    // The list's rows of an archived month are gone: its totals count nothing there either.
    requirePartition: true,
    dims: ['currency'],
    narrow: (q, alias) => {
      scopeFilter(q, scope, { providerId: `${alias}.provider_id`, groupId: `${alias}.group_id` });
      for (const name of set) {
        const column = ROLLUP_COLUMN[name];
        if (!column || (column === 'category' && table === 'rounds')) continue;
        q.where(`${alias}.${column}`, filter[name] as string | number);
      }
      return q;
    },
  });
}

/** The same totals counted over the rows themselves (filters the rollups do not keep). */
async function liveTotals(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter) {
  const sums = table === 'transactions'
    ? ['sum(transactions.amount)::text as amount']
    : ['sum(rounds.bet_amount)::text as bet_amount', 'coalesce(sum(rounds.payout_amount), 0)::text as payout_amount'];
  return bounded<Record<string, string>[]>(
    scopedLedger(read, table, scope, filter)
      .select(`${table}.currency`)
      .select(read.raw(['count(*)::text as count', ...sums].join(', ')))
      .groupBy(`${table}.currency`)
      .orderBy(`${table}.currency`),
  );
}

/** Every matching row, oldest first, through a server-side cursor: constant memory whatever the length. */
export function searchStream(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter): AsyncIterable<Record<string, unknown>> {
  return streamed(scopedLedger(read, table, scope, filter)
    .select(SEARCH_COLUMNS[table].map((c) => `${table}.${c}`))
    .orderBy([{ column: `${table}.created_at`, order: 'asc' }, { column: `${table}.id`, order: 'asc' }]));
}
