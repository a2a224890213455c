import type { Knex } from '@relay/shared';
import { isoTimestamp, optionalNumber, optionalTimestamp, requiredNumber, withoutEmpty } from './format';
import { pagedList, withTimeout, type ListCriteria, type Page } from './pagedList';

/** A transaction record as reporting shows it (spec, Transaction). Fields with no value are absent. */
export interface Transaction {
  id: string;
  transactionId: string;
  previousTransactionId?: string;
  category: 'CASH_OUT' | 'CASH_IN';
  status: 'PENDING' | 'SUCCESS' | 'FAILED';
  groupId: string;
  gameId: number;
  providerId: string;
  playerId: string;
  sessionId: string;
  roundId: string;
  amount: number;
  currency: string;
  language: string;
  reason?: string;
  appliedMultiplier?: number;
  betAmount?: number;
  isRetry: boolean;
  balance?: number;
  errorCode?: string;
  errorMessage?: string;
  completedAt?: string;
  createdAt: string;
  updatedAt: string;
}

interface TransactionRow {
  id: string;
  transaction_id: string;
  previous_transaction_id: string | null;
  category: 'CASH_OUT' | 'CASH_IN';
  status: 'PENDING' | 'SUCCESS' | 'FAILED';
  group_id: string;
  game_id: number;
  provider_id: string;
  player_id: string;
  session_id: string;
  round_id: string;
  amount: string;
  currency: string;
  language: string;
  reason: string | null;
  applied_multiplier: string | null;
  bet_amount: string | null;
  is_retry: boolean;
  balance: string | null;
  error_code: string | null;
  error_message: string | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Named columns only: the request fingerprint, attempt counters and the like stay internal. */
const COLUMNS = [
  'id', 'transaction_id', 'previous_transaction_id', 'category', 'status', 'group_id', 'game_id', 'provider_id',
  'player_id', 'session_id', 'round_id', 'amount', 'currency', 'language', 'reason', 'applied_multiplier', 'bet_amount',
  'is_retry', 'balance', 'error_code', 'error_message', 'completed_at', 'created_at', 'updated_at',
] as const;

export const TRANSACTION_SORT_COLUMNS = {
  createdAt: { column: 'created_at', nullable: false, type: 'timestamp' },
  completedAt: { column: 'completed_at', nullable: true, type: 'timestamp' },
  amount: { column: 'amount', nullable: false, type: 'numeric' },
} as const;

export type TransactionSortField = keyof typeof TRANSACTION_SORT_COLUMNS;

export interface TransactionFilters {
  gameId?: number;
  providerId?: string;
  playerId?: string;
  roundId?: string;
  currency?: string;
  transactionId?: string;
  category?: 'CASH_OUT' | 'CASH_IN';
  status?: 'PENDING' | 'SUCCESS' | 'FAILED';
}

const FILTER_COLUMNS: Record<keyof TransactionFilters, string> = {
  gameId: 'game_id',
  providerId: 'provider_id',
  playerId: 'player_id',
  roundId: 'round_id',
  currency: 'currency',
  transactionId: 'transaction_id',
  category: 'category',
  status: 'status',
};

export class TransactionRepository {
  constructor(private readonly read: Knex) {}

  async list(groupId: string, filters: TransactionFilters, criteria: Omit<ListCriteria, 'equals'>): Promise<Page<Transaction>> {
    const equals: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(filters)) {
      if (value !== undefined) equals[FILTER_COLUMNS[name as keyof TransactionFilters]] = value;
    }
    const page = await pagedList<TransactionRow>(this.read, 'transactions', COLUMNS, groupId, { ...criteria, equals });
    return { ...page, rows: page.rows.map(toTransaction) };
  }

  async find(groupId: string, providerId: string, transactionId: string): Promise<Transaction | null> {
    const rows = await withTimeout<TransactionRow[]>(
      this.read('transactions').select(COLUMNS).where({ provider_id: providerId, transaction_id: transactionId, group_id: groupId }).limit(1),
    );
    return rows.length ? toTransaction(rows[0]) : null;
  }

  /** Every transaction record of one round, oldest first: the bet, then its credits and retries. */
  async forRound(groupId: string, providerId: string, roundId: string): Promise<Transaction[]> {
    const rows = await withTimeout<TransactionRow[]>(
      this.read('transactions')
        .select(COLUMNS)
        .where({ provider_id: providerId, round_id: roundId, group_id: groupId })
        .orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }])
        // A round holds one bet and its settlement; the bound only protects the response size.
        .limit(1000),
    );
    return rows.map(toTransaction);
  }
}

function toTransaction(row: TransactionRow): Transaction {
  return withoutEmpty({
    id: row.id,
    transactionId: row.transaction_id,
    previousTransactionId: row.previous_transaction_id ?? undefined,
    category: row.category,
    status: row.status,
    groupId: row.group_id,
    gameId: row.game_id,
    providerId: row.provider_id,
    playerId: row.player_id,
    sessionId: row.session_id,
    roundId: row.round_id,
    amount: requiredNumber(row.amount),
    currency: row.currency,
    language: row.language,
    reason: row.reason ?? undefined,
    appliedMultiplier: optionalNumber(row.applied_multiplier),
    betAmount: optionalNumber(row.bet_amount),
    isRetry: row.is_retry,
    balance: optionalNumber(row.balance),
    errorCode: row.error_code ?? undefined,
    errorMessage: row.error_message ?? undefined,
    completedAt: optionalTimestamp(row.completed_at),
    createdAt: isoTimestamp(row.created_at),
    updatedAt: isoTimestamp(row.updated_at),
  });
}
