import { Router } from 'express';
import { z } from 'zod';
import { callerGroupId, handler, sendEnvelope } from '@relay/shared';
import type { Catalog } from '../domain/catalog';
import { gameIdParam, idParam, integerParam, parseQuery } from './query';

/** Spec, Limits: `days` is an integer 1 to 30. */
export const casinoIdsQuery = z.strictObject({ days: integerParam(1, 30).optional() });

export const catalogQuery = z.strictObject({ gameId: gameIdParam.optional(), providerId: idParam.optional() });

export function casinosRouter(catalog: Catalog): Router {
  const router = Router();

  router.get('/api/v1/providers/ids', handler(async (req, res) => {
    const { days } = parseQuery(casinoIdsQuery, req.query);
    sendEnvelope(res, 200, 'Provider ids fetched successfully', await catalog.casinoIds(days));
  }));

  router.get('/api/v1/provider-catalog', handler(async (req, res) => {
    const filter = parseQuery(catalogQuery, req.query);
    sendEnvelope(res, 200, 'Provider catalog fetched successfully', await catalog.catalog(callerGroupId(req), filter));
  }));

  return router;
}
