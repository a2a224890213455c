import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { handler, sendEnvelope } from '@relay/shared';
import { callerOf } from '../domain/access';
import type { BackofficeDeps } from '../domain/deps';
import { decide, exportQueue, getItem, listQueue } from '../domain/reconciliation';
import { ITEM_KINDS } from '../data/reconciliation';
import { sendCsv } from './csv';
import { idParam, limitParam, pageParam } from './money-params';
import { sendKeysetList } from './present-money';
import { factsOf, parse } from './validation';

export const itemFilter = z.object({
  kind: z.enum(ITEM_KINDS).optional(),
  state: z.enum(['OPEN', 'ACKNOWLEDGED', 'RESOLVED']).optional(),
  providerId: idParam.optional(),
  groupId: idParam.optional(),
}).strict();
export const itemPaging = z.object({ page: pageParam, limit: limitParam });
export const itemKey = z.object({ kind: z.enum(ITEM_KINDS), providerId: idParam, recordId: idParam });
export const decisionBody = z.object({ note: z.string().trim().min(1, 'a note is required').max(2000) }).strict();

export const ITEM_CSV_COLUMNS = ['kind', 'state', 'providerId', 'groupId', 'gameId', 'playerId', 'roundId', 'transactionId', 'category', 'amount', 'currency', 'errorCode', 'since', 'ageSeconds', 'note', 'decidedBy', 'decidedAt', 'suggestedAction', 'storyLink'];

/** The reconciliation queue: list (oldest first, with counts by kind and age), CSV, one item, acknowledge, resolve. */
export function reconciliationRoutes(deps: BackofficeDeps): Router {
  const base = '/money/reconciliation/items';
  const router = Router()
    .get(base, handler(async (req, res) => {
      const { page, limit, ...f } = parse(itemFilter.extend(itemPaging.shape), req.query);
      const found = await listQueue(deps, callerOf(req.identity), f, { limit, offset: (page - 1) * limit });
      sendKeysetList(res, 'Reconciliation items fetched successfully', found.items, { total: found.total, page, limit, counts: found.counts });
    }))
    .get(`${base}.csv`, handler(async (req, res) => {
      const f = parse(itemFilter, req.query);
      const caller = callerOf(req.identity);
      await sendCsv(deps, req, res, 'reconciliation.csv', caller, f, ITEM_CSV_COLUMNS, () => exportQueue(deps, caller, f));
    }))
    .get(`${base}/:kind/:providerId/:recordId`, handler(async (req, res) => {
      const k = parse(itemKey, req.params);
      sendEnvelope(res, 200, 'Reconciliation item fetched successfully', await getItem(deps, callerOf(req.identity), k.kind, k.providerId, k.recordId));
    }))
    .post(`${base}/:kind/:providerId/:recordId/acknowledge`, handler(async (req, res) => decideRoute(req, res, 'acknowledge')))
    .post(`${base}/:kind/:providerId/:recordId/resolve`, handler(async (req, res) => decideRoute(req, res, 'resolve')));
  return router;

  async function decideRoute(req: Request, res: Response, action: 'acknowledge' | 'resolve') {
    const k = parse(itemKey, req.params);
    const { note } = parse(decisionBody, req.body ?? {});
    const item = await decide(deps, factsOf(req), action, k.kind, k.providerId, k.recordId, note);
    sendEnvelope(res, 200, `Reconciliation item ${item.state.toLowerCase()}`, item);
  }
}
