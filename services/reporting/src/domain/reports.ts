import { AppError } from '@relay/shared';
import type { ListCriteria, Page, SortColumn } from '../data/pagedList';
import { decodeCursor, encodeCursor, type CursorContext } from './cursor';
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
  /** Keyset paging instead of page: "start" or the nextCursor of the previous page. */
  cursor?: string;
}

/** A list page; nextCursor only when the request walked with a cursor (null after the last page). */
export interface Listed<Row> {
  rows: Row[];
  /** Always for page/limit; for a cursor walk, on its first page only. */
  total?: number;
  nextCursor?: string | null;
}

export type RoundWithTransactions = Round & { transactions: Transaction[] };

export class Reports {
  constructor(
    private readonly rounds: RoundRepository,
    private readonly transactions: TransactionRepository,
  ) {}

  listRounds(groupId: string, request: ListRequest<RoundSortField, RoundFilters>): Promise<Listed<Round>> {
    return listed(request, ROUND_SORT_COLUMNS[request.sortBy], (c) => this.rounds.list(groupId, request.filters, c));
  }

  async getRound(groupId: string, providerId: string, roundId: string): Promise<RoundWithTransactions> {
    const [round, transactions] = await Promise.all([
      this.rounds.find(groupId, providerId, roundId),
      this.transactions.forRound(groupId, providerId, roundId),
    ]);
    if (!round) throw new AppError('ROUND_NOT_FOUND', 'Round not found');
    return { ...round, transactions };
  }

  listTransactions(groupId: string, request: ListRequest<TransactionSortField, TransactionFilters>): Promise<Listed<Transaction>> {
    return listed(request, TRANSACTION_SORT_COLUMNS[request.sortBy], (c) => this.transactions.list(groupId, request.filters, c));
  }

  async getTransaction(groupId: string, providerId: string, transactionId: string): Promise<Transaction> {
    const transaction = await this.transactions.find(groupId, providerId, transactionId);
    if (!transaction) throw new AppError('TRANSACTION_NOT_FOUND', 'Transaction not found');
    return transaction;
  }
}

/** Runs one page query, by page number or by cursor, and hands the next cursor out when walking. */
async function listed<S extends string, F, Row>(
  request: ListRequest<S, F>,
  sort: SortColumn,
  list: (criteria: Omit<ListCriteria, 'equals'>) => Promise<Page<Row>>,
): Promise<Listed<Row>> {
  if (request.cursor === undefined) {
    const page = await list(criteria(request, sort));
    return { rows: page.rows, total: page.total };
  }
  const context: CursorContext = { sortBy: request.sortBy, sortOrder: request.sortOrder, filters: { ...request.filters, from: request.from, to: request.to } };
  const after = decodeCursor(request.cursor, context, sort);
  const page = await list({ ...criteria(request, sort), page: 1, after });
  return { rows: page.rows, total: page.total, nextCursor: page.next ? encodeCursor(page.next, context) : null };
}

function criteria<S extends string, F>(request: ListRequest<S, F>, sort: SortColumn): Omit<ListCriteria, 'equals'> {
  return {
    createdFrom: request.from,
    createdTo: request.to,
    sort,
    sortOrder: request.sortOrder,
    page: request.page,
    limit: request.limit,
  };
}
