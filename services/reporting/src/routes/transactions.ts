import { Router } from 'express';
import { z } from 'zod';
import { AppError, callerGroupId, handler, sendEnvelope } from '@relay/shared';
import type { Reports } from '../domain/reports';
import { enumParam, idParam, parseQuery } from './query';
import { listMeta, listParams, oneWayOfPaging, rangeInOrder } from './listParams';

export const listTransactionsQuery = z
  .strictObject({
    ...listParams(['createdAt', 'completedAt', 'amount'] as const),
    transactionId: idParam.optional(),
    category: enumParam(['CASH_OUT', 'CASH_IN'] as const).optional(),
    status: enumParam(['PENDING', 'SUCCESS', 'FAILED'] as const).optional(),
  })
  .superRefine(rangeInOrder);

export const transactionPath = z.object({ providerId: idParam, transactionId: idParam });

export function transactionsRouter(reports: Reports): Router {
  const router = Router();

  router.get('/api/v1/transactions', handler(async (req, res) => {
    const { page, limit, from, to, sortBy, sortOrder, cursor, ...filters } = parseQuery(listTransactionsQuery, req.query);
    oneWayOfPaging(req.query, cursor);
    const result = await reports.listTransactions(callerGroupId(req), { filters, from, to, sortBy, sortOrder, page, limit, cursor });
    sendEnvelope(res, 200, 'Transactions fetched successfully', result.rows, listMeta(result, page, limit));
  }));

  router.get('/api/v1/transactions/:providerId/:transactionId', handler(async (req, res) => {
    const path = transactionPath.safeParse(req.params);
    // An id no record can have (empty, NUL, oversized) is answered like any other unknown transaction.
    if (!path.success) throw new AppError('TRANSACTION_NOT_FOUND', 'Transaction not found');
    const transaction = await reports.getTransaction(callerGroupId(req), path.data.providerId, path.data.transactionId);
    sendEnvelope(res, 200, 'Transaction fetched successfully', transaction);
  }));

  return router;
}
