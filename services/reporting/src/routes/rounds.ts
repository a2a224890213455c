import { Router } from 'express';
import { z } from 'zod';
import { AppError, callerGroupId, handler, sendEnvelope } from '@relay/shared';
import type { Reports } from '../domain/reports';
import { enumParam, idParam, parseQuery } from './query';
import { listMeta, listParams, oneWayOfPaging, rangeInOrder } from './listParams';

export const listRoundsQuery = z
  .strictObject({
    ...listParams(['createdAt', 'openedAt', 'settledAt', 'betAmount', 'payoutAmount'] as const),
    status: enumParam(['OPEN', 'SETTLED'] as const).optional(),
  })
  .superRefine(rangeInOrder);

export const roundPath = z.object({ providerId: idParam, roundId: idParam });

export function roundsRouter(reports: Reports): Router {
  const router = Router();

  router.get('/api/v1/rounds', handler(async (req, res) => {
    const { page, limit, from, to, sortBy, sortOrder, cursor, ...filters } = parseQuery(listRoundsQuery, req.query);
    oneWayOfPaging(req.query, cursor);
    const result = await reports.listRounds(callerGroupId(req), { filters, from, to, sortBy, sortOrder, page, limit, cursor });
    sendEnvelope(res, 200, 'Rounds fetched successfully', result.rows, listMeta(result, page, limit));
  }));

  router.get('/api/v1/rounds/:providerId/:roundId', handler(async (req, res) => {
    const path = roundPath.safeParse(req.params);
    // An id no record can have (empty, NUL, oversized) is answered like any other unknown round.
    if (!path.success) throw new AppError('ROUND_NOT_FOUND', 'Round not found');
    const round = await reports.getRound(callerGroupId(req), path.data.providerId, path.data.roundId);
    sendEnvelope(res, 200, 'Round fetched successfully', round);
  }));

  return router;
}
