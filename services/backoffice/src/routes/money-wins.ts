import { Router } from 'express';
import { z } from 'zod';
import { handler, isValidAmount, sendEnvelope, toMoneyString } from '@relay/shared';
import { callerOf } from '../domain/access';
import type { BackofficeDeps } from '../domain/deps';
import { exportFlaggedWins, getThresholds, listAllThresholds, listFlaggedWins, reviewWin, setThresholds } from '../domain/wins';
import { sendCsv } from './csv';
import { idParam, instantParam, limitParam, pageParam } from './money-params';
import { decisionBody } from './money-reconciliation';
import { sendKeysetList } from './present-money';
import { factsOf, parse } from './validation';

export const winFilter = z.object({
  providerId: idParam.optional(),
  groupId: idParam.optional(),
  currency: idParam.optional(),
  state: z.enum(['FLAGGED', 'REVIEWED']).optional(),
  from: instantParam.optional(),
  to: instantParam.optional(),
}).strict();
/**
 * Every paid credit is a candidate (thresholds apply at read time), so a list without a period
 * reads the last 30 days; name `from` to look further back.
 */
export const DEFAULT_WIN_DAYS = 30;
function withDefaultPeriod<F extends { from?: Date; to?: Date }>(f: F): F {
  return f.from || f.to ? f : { ...f, from: new Date(Date.now() - DEFAULT_WIN_DAYS * 86400_000) };
}

export const winPath = z.object({ providerId: idParam, transactionId: idParam });
export const thresholdsPath = z.object({ providerId: idParam });
export const winPaging = z.object({ page: pageParam, limit: limitParam });

const threshold = z.number().refine(isValidAmount, 'must be a non-negative number with at most 2 decimals').transform((n) => toMoneyString(n));
export const thresholdsBody = z.object({
  multiplierOver: z.number().finite().min(0).max(1e9).transform((n) => String(n)),
  payoutOver: z.record(z.string().regex(/^([A-Z0-9]{2,10}|\*)$/, 'must be a currency code or *'), threshold)
    .refine((m) => Object.keys(m).length > 0 && Object.keys(m).length <= 200, 'must name 1 to 200 currencies'),
}).strict();

export const WIN_CSV_COLUMNS = ['state', 'providerId', 'transactionId', 'groupId', 'gameId', 'playerId', 'roundId', 'amount', 'currency', 'appliedMultiplier', 'betAmount', 'flaggedFor', 'payoutOver', 'multiplierOver', 'reviewNote', 'reviewedBy', 'reviewedAt', 'createdAt', 'storyLink'];

/** Flagged wins (list, CSV, review) and the per-casino thresholds. */
export function winRoutes(deps: BackofficeDeps): Router {
  return Router()
    .get('/money/flagged-wins', handler(async (req, res) => {
      const { page, limit, ...q } = parse(winFilter.extend(winPaging.shape), req.query);
      const f = withDefaultPeriod(q);
      const found = await listFlaggedWins(deps, callerOf(req.identity), f, { limit, offset: (page - 1) * limit });
      sendKeysetList(res, 'Flagged wins fetched successfully', found.rows, { total: found.total, page, limit, from: f.from?.toISOString() ?? null, to: f.to?.toISOString() ?? null });
    }))
    .get('/money/flagged-wins.csv', handler(async (req, res) => {
      const f = withDefaultPeriod(parse(winFilter, req.query));
      const caller = callerOf(req.identity);
      await sendCsv(deps, req, res, 'flagged-wins.csv', caller, f, WIN_CSV_COLUMNS, () => exportFlaggedWins(deps, caller, f));
    }))
    .post('/money/flagged-wins/:providerId/:transactionId/review', handler(async (req, res) => {
      const { providerId, transactionId } = parse(winPath, req.params);
      const { note } = parse(decisionBody, req.body ?? {});
      sendEnvelope(res, 200, 'Win reviewed', await reviewWin(deps, factsOf(req), providerId, transactionId, note));
    }))
    .get('/money/flag-thresholds', handler(async (req, res) => {
      sendEnvelope(res, 200, 'Flag thresholds fetched successfully', await listAllThresholds(deps, callerOf(req.identity)));
    }))
    .get('/money/flag-thresholds/:providerId', handler(async (req, res) => {
      sendEnvelope(res, 200, 'Flag thresholds fetched successfully', await getThresholds(deps, callerOf(req.identity), parse(thresholdsPath, req.params).providerId));
    }))
    .put('/money/flag-thresholds/:providerId', handler(async (req, res) => {
      const body = parse(thresholdsBody, req.body ?? {});
      sendEnvelope(res, 200, 'Flag thresholds saved', await setThresholds(deps, factsOf(req), parse(thresholdsPath, req.params).providerId, body));
    }));
}
