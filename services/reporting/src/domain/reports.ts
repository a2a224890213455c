import { AppError } from '@relay/shared';
import type { ListCriteria, Page } from '../data/pagedList';
import { ROUND_SORT_COLUMNS, type Round, type RoundFilters, type RoundRepository, type RoundSortField } from '../data/rounds';
import {
  TRANSACTION_SORT_COLUMNS,
  type Transaction,
  type TransactionFilters,
  type TransactionRepository,
  type TransactionSortField,
} from '../data/transactions';

/**
 * Reporting use cases: every read is scoped to the calling game provider (groupId), and a record of
 * another game provider is answered exactly like a record that does not exist.
 */

export interface ListRequest<Sort extends string, Filters> {
  filters: Filters;
  from?: Date;
  to?: Date;
  sortBy: Sort;
  sortOrder: 'asc' | 'desc';
  page: number;
  limit: number;
}

export type RoundWithTransactions = Round & { transactions: Transaction[] };

export class Reports {
  constructor(
    private readonly rounds: RoundRepository,
    private readonly transactions: TransactionRepository,
  ) {}

  listRounds(groupId: string, request: ListRequest<RoundSortField, RoundFilters>): Promise<Page<Round>> {
    return this.rounds.list(groupId, request.filters, criteria(request, ROUND_SORT_COLUMNS[request.sortBy]));
  }

  async getRound(groupId: string, providerId: string, roundId: string): Promise<RoundWithTransactions> {
    const [round, transactions] = await Promise.all([
      this.rounds.find(groupId, providerId, roundId),
      this.transactions.forRound(groupId, providerId, roundId),
    ]);
    if (!round) throw new AppError('ROUND_NOT_FOUND', 'Round not found');
    return { ...round, transactions };
  }

  listTransactions(groupId: string, request: ListRequest<TransactionSortField, TransactionFilters>): Promise<Page<Transaction>> {
    return this.transactions.list(groupId, request.filters, criteria(request, TRANSACTION_SORT_COLUMNS[request.sortBy]));
  }

  async getTransaction(groupId: string, providerId: string, transactionId: string): Promise<Transaction> {
    const transaction = await this.transactions.find(groupId, providerId, transactionId);
    if (!transaction) throw new AppError('TRANSACTION_NOT_FOUND', 'Transaction not found');
    return transaction;
  }
}

function criteria<S extends string, F>(request: ListRequest<S, F>, sort: ListCriteria['sort']): Omit<ListCriteria, 'equals'> {
  return {
    createdFrom: request.from,
    createdTo: request.to,
    sort,
    sortOrder: request.sortOrder,
    page: request.page,
    limit: request.limit,
  };
}
