import { Router } from 'express';
import { z } from 'zod';
import { handler, sendEnvelope } from '@relay/shared';
import { callerOf } from '../domain/access';
import type { BackofficeDeps } from '../domain/deps';
import { exportSearch, roundStory, search, transactionDetail } from '../domain/money';
import type { LedgerFilter, LedgerTable } from '../data/ledger';
import { sendCsv } from './csv';
import { sendKeysetList } from './present-money';
import { idParam, roundExportSort, roundFilter, roundSort, searchPaging, transactionExportSort, transactionFilter, transactionSort } from './money-params';
import { parse } from './validation';

export const TRANSACTION_CSV_COLUMNS = ['providerId', 'transactionId', 'previousTransactionId', 'category', 'status', 'groupId', 'gameId', 'playerId', 'sessionId', 'roundId', 'amount', 'currency', 'reason', 'appliedMultiplier', 'betAmount', 'isRetry', 'balance', 'errorCode', 'attempts', 'completedAt', 'createdAt'];
export const ROUND_CSV_COLUMNS = ['providerId', 'roundId', 'groupId', 'gameId', 'playerId', 'sessionId', 'currency', 'status', 'betAmount', 'betTransactionId', 'payoutAmount', 'appliedMultiplier', 'settleTransactionId', 'settleReason', 'openedAt', 'settledAt', 'createdAt'];

export const roundPath = z.object({ providerId: idParam, roundId: idParam });
export const transactionPath = z.object({ providerId: idParam, transactionId: idParam });

/** Each list's query schema (filters, sort, paging) and its export's (filters, sort). */
export const transactionQuery = transactionFilter.extend(transactionSort.shape).extend(searchPaging.shape);
export const transactionExportQuery = transactionFilter.extend(transactionExportSort.shape);
export const roundQuery = roundFilter.extend(roundSort.shape).extend(searchPaging.shape);
export const roundExportQuery = roundFilter.extend(roundExportSort.shape);

const LISTS: [string, LedgerTable, z.ZodType<ListQuery>, z.ZodType<ExportQuery>, string[]][] = [
  ['transactions', 'transactions', transactionQuery, transactionExportQuery, TRANSACTION_CSV_COLUMNS],
  ['rounds', 'rounds', roundQuery, roundExportQuery, ROUND_CSV_COLUMNS],
];
type ExportQuery = LedgerFilter & { sortBy?: string; sortOrder?: 'asc' | 'desc' };
type ListQuery = LedgerFilter & { sortBy: string; sortOrder: 'asc' | 'desc'; limit: number; cursor?: string };

/**
 * Search rounds and transactions across the caller's scope (`/money/rounds`, `/money/transactions`),
 * their CSV exports, a round's story and a transaction's detail.
 */
export function moneySearchRoutes(deps: BackofficeDeps): Router {
  const router = Router();
  for (const [path, table, listQuery, exportQuery, columns] of LISTS) {
    router.get(`/money/${path}`, handler(async (req, res) => {
      const { limit, cursor, sortBy, sortOrder, ...f } = parse(listQuery, req.query);
      const found = await search(deps, callerOf(req.identity), table, f, { limit, sort: { by: sortBy, order: sortOrder }, cursor });
      sendKeysetList(res, `${path === 'rounds' ? 'Rounds' : 'Transactions'} fetched successfully`, found.rows, { nextCursor: found.next, totals: found.totals });
    }));
    router.get(`/money/${path}.csv`, handler(async (req, res) => {
      const q = parse(exportQuery, req.query);
      const { sortBy, sortOrder, ...f } = q;
      const caller = callerOf(req.identity);
      // The header line names the sort too when one was asked for.
      const sort = { by: sortBy ?? 'createdAt', order: sortOrder ?? 'asc' } as const;
      await sendCsv(deps, req, res, `${path}.csv`, caller, { ...q }, columns, () => exportSearch(deps, caller, table, f, sort));
    }));
  }
  router.get('/money/rounds/:providerId/:roundId/story', handler(async (req, res) => {
    const { providerId, roundId } = parse(roundPath, req.params);
    sendEnvelope(res, 200, 'Round story fetched successfully', await roundStory(deps, callerOf(req.identity), providerId, roundId));
  }));
  router.get('/money/transactions/:providerId/:transactionId', handler(async (req, res) => {
    const { providerId, transactionId } = parse(transactionPath, req.params);
    sendEnvelope(res, 200, 'Transaction fetched successfully', await transactionDetail(deps, callerOf(req.identity), providerId, transactionId));
  }));
  return router;
}
