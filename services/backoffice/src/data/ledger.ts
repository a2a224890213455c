import { toJsonNumber, type Knex, type OperatorScope } from '@relay/shared';
import { createdUntil, distinctBySkipScan } from '@relay/ledger';
import { scopeFilter } from '../domain/access';

/**
 * The money tables as the back office reads them: which columns leave the database (never the
 * request fingerprint, never a wallet token), the filters of the search, and the scope applied
 * through access.scopeFilter before anything else.
 */

export const TRANSACTION_COLUMNS = [
  'id', 'transaction_id', 'previous_transaction_id', 'category', 'status', 'group_id', 'game_id', 'provider_id', 'player_id',
  'session_id', 'round_id', 'amount', 'currency', 'language', 'reason', 'applied_multiplier', 'bet_amount', 'is_retry',
  'balance', 'error_code', 'error_message', 'attempt', 'claimed_at', 'completed_at', 'created_at', 'updated_at',
] as const;

export const ROUND_COLUMNS = [
  'id', 'provider_id', 'round_id', 'group_id', 'game_id', 'player_id', 'session_id', 'currency', 'status', 'bet_amount',
  'bet_transaction_id', 'payout_amount', 'applied_multiplier', 'settle_transaction_id', 'settle_reason', 'outcome',
  'opened_at', 'settled_at', 'created_at', 'updated_at',
] as const;

/** What both searches filter on; the table decides which columns the names mean. */
export interface LedgerFilter {
  groupId?: string;
  providerId?: string;
  gameId?: number;
  playerId?: string;
  roundId?: string;
  sessionId?: string;
  currency?: string;
  transactionId?: string;
  category?: 'CASH_OUT' | 'CASH_IN';
  status?: string;
  reason?: string;
  /** Exact decimal text, inclusive. */
  amountMin?: string;
  amountMax?: string;
  from?: Date;
  to?: Date;
}

export type LedgerTable = 'transactions' | 'rounds';

const COLUMNS: Record<LedgerTable, Partial<Record<keyof LedgerFilter, string>>> = {
  transactions: {
    groupId: 'group_id', providerId: 'provider_id', gameId: 'game_id', playerId: 'player_id', roundId: 'round_id', sessionId: 'session_id',
    currency: 'currency', transactionId: 'transaction_id', category: 'category', status: 'status', reason: 'reason',
  },
  rounds: {
    groupId: 'group_id', providerId: 'provider_id', gameId: 'game_id', playerId: 'player_id', roundId: 'round_id', sessionId: 'session_id',
    currency: 'currency', transactionId: 'bet_transaction_id', status: 'status', reason: 'settle_reason',
  },
};
const AMOUNT: Record<LedgerTable, string> = { transactions: 'amount', rounds: 'bet_amount' };

/** The filter's equalities as column to value, in the table's own column names (a rounds search has no category). */
export function ledgerEquals(table: LedgerTable, filter: LedgerFilter): Record<string, string | number> {
  const equals: Record<string, string | number> = {};
  for (const [name, column] of Object.entries(COLUMNS[table])) {
    const value = filter[name as keyof LedgerFilter];
    if (value !== undefined) equals[column] = value as string | number;
  }
  return equals;
}

/** The table, narrowed to the caller's scope first, then to the filters. Column names come from code only. */
export function scopedLedger(read: Knex, table: LedgerTable, scope: OperatorScope, filter: LedgerFilter): Knex.QueryBuilder {
  const q = scopeFilter(read(table), scope, { providerId: `${table}.provider_id`, groupId: `${table}.group_id` });
  for (const [column, value] of Object.entries(ledgerEquals(table, filter))) q.where(`${table}.${column}`, value);
  if (filter.amountMin !== undefined) q.where(`${table}.${AMOUNT[table]}`, '>=', filter.amountMin);
  if (filter.amountMax !== undefined) q.where(`${table}.${AMOUNT[table]}`, '<=', filter.amountMax);
  if (filter.from) q.where(`${table}.created_at`, '>=', filter.from);
  const until = createdUntil({ createdTo: filter.to });
  if (until) q.where(`${table}.created_at`, '<', until);
  if (filter.playerId !== undefined && filter.groupId === undefined && scope.type !== 'studio') everyStudio(read, q, table);
  return q;
}

/**
 * A player's records whatever the studio: the player indexes lead with the studio
 * (group_id, player_id, created_at DESC), so a search that names a player but no studio (a
 * platform or casino account) names every studio that has records in the table: per partition,
 * one probe of the player's entries per studio instead of a walk through everyone's
 * (test/money-search-player). The studios are the table's own, found by a skip scan of an index
 * leading with group_id (one probe per studio and partition, about a millisecond), not the
 * registry's: a record whose studio the registry lacks is still found. The casino's scope still
 * applies, through scopeFilter above.
 */
function everyStudio(read: Knex, q: Knex.QueryBuilder, table: LedgerTable): void {
  q.where(`${table}.group_id`, read.raw('ANY(ARRAY(?))', [distinctBySkipScan(read, table, 'group_id')]));
}

type Row = Record<string, unknown>;

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? null : new Date(String(v)).toISOString());
const num = (v: unknown) => toJsonNumber(v as string | null);

export function presentTransaction(r: Row) {
  return {
    id: r.id as string,
    providerId: r.provider_id as string,
    transactionId: r.transaction_id as string,
    previousTransactionId: (r.previous_transaction_id as string | null) ?? null,
    category: r.category as string,
    status: r.status as string,
    groupId: r.group_id as string,
    gameId: r.game_id as number,
    playerId: r.player_id as string,
    sessionId: r.session_id as string,
    roundId: r.round_id as string,
    amount: num(r.amount),
    currency: r.currency as string,
    reason: (r.reason as string | null) ?? null,
    appliedMultiplier: num(r.applied_multiplier),
    betAmount: num(r.bet_amount),
    isRetry: r.is_retry as boolean,
    balance: num(r.balance),
    errorCode: (r.error_code as string | null) ?? null,
    errorMessage: (r.error_message as string | null) ?? null,
    attempts: r.attempt as number,
    completedAt: iso(r.completed_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export function presentRound(r: Row) {
  return {
    id: r.id as string,
    providerId: r.provider_id as string,
    roundId: r.round_id as string,
    groupId: r.group_id as string,
    gameId: r.game_id as number,
    playerId: r.player_id as string,
    sessionId: r.session_id as string,
    currency: r.currency as string,
    status: r.status as string,
    betAmount: num(r.bet_amount),
    betTransactionId: r.bet_transaction_id as string,
    payoutAmount: num(r.payout_amount),
    appliedMultiplier: num(r.applied_multiplier),
    settleTransactionId: (r.settle_transaction_id as string | null) ?? null,
    settleReason: (r.settle_reason as string | null) ?? null,
    outcome: (r.outcome as string | null) ?? null,
    openedAt: iso(r.opened_at),
    settledAt: iso(r.settled_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export { iso as isoOrNull, num as jsonNumber };
