import { Router } from 'express';
import { z } from 'zod';
import { handler, sendEnvelope } from '@relay/shared';
import { callerOf } from '../domain/access';
import type { BackofficeDeps } from '../domain/deps';
import { exportSearch, roundStory, search, transactionDetail } from '../domain/money';
import type { LedgerTable } from '../data/ledger';
import { sendCsv } from './csv';
import { sendKeysetList } from './present-money';
import { idParam, roundFilter, searchPaging, transactionFilter } from './money-params';
import { parse } from './validation';

export const TRANSACTION_CSV_COLUMNS = ['providerId', 'transactionId', 'previousTransactionId', 'category', 'status', 'groupId', 'gameId', 'playerId', 'sessionId', 'roundId', 'amount', 'currency', 'reason', 'appliedMultiplier', 'betAmount', 'isRetry', 'balance', 'errorCode', 'attempts', 'completedAt', 'createdAt'];
export const ROUND_CSV_COLUMNS = ['providerId', 'roundId', 'groupId', 'gameId', 'playerId', 'sessionId', 'currency', 'status', 'betAmount', 'betTransactionId', 'payoutAmount', 'appliedMultiplier', 'settleTransactionId', 'settleReason', 'openedAt', 'settledAt', 'createdAt'];

export const roundPath = z.object({ providerId: idParam, roundId: idParam });
export const transactionPath = z.object({ providerId: idParam, transactionId: idParam });

const LISTS: [string, LedgerTable, typeof transactionFilter | typeof roundFilter, string[]][] = [
  ['transactions', 'transactions', transactionFilter, TRANSACTION_CSV_COLUMNS],
  ['rounds', 'rounds', roundFilter, ROUND_CSV_COLUMNS],
];

/**
 * Search rounds and transactions across the caller's scope (`/money/rounds`, `/money/transactions`),
 * their CSV exports, a round's story and a transaction's detail.
 */
export function moneySearchRoutes(deps: BackofficeDeps): Router {
  const router = Router();
  for (const [path, table, filter, columns] of LISTS) {
    router.get(`/money/${path}`, handler(async (req, res) => {
      const { limit, cursor, sortOrder, ...f } = parse(filter.extend(searchPaging.shape), req.query);
      const found = await search(deps, callerOf(req.identity), table, f, { limit, order: sortOrder, cursor });
      sendKeysetList(res, `${path === 'rounds' ? 'Rounds' : 'Transactions'} fetched successfully`, found.rows, { nextCursor: found.next, totals: found.totals });
    }));
    router.get(`/money/${path}.csv`, handler(async (req, res) => {
      const f = parse(filter, req.query);
      const caller = callerOf(req.identity);
      await sendCsv(req, res, `${path}.csv`, caller, f, columns, () => exportSearch(deps, caller, table, f));
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
