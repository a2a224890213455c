import { Router } from 'express';
import { z } from 'zod';
import { handler } from '@relay/shared';
import { callerOf } from '../domain/access';
import type { BackofficeDeps } from '../domain/deps';
import { exportReport, report, REPORT_FIELDS, withCurrency } from '../domain/reports';
import { DIMENSIONS, type Dimension } from '../data/reports';
import { sendCsv } from './csv';
import { dayParam, gameIdParam, idParam, limitParam, pageParam } from './money-params';
import { sendKeysetList } from './present-money';
import { parse } from './validation';

const today = () => new Date().toISOString().slice(0, 10);
const daysBefore = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) - n * 86400_000).toISOString().slice(0, 10);

/** GET /money/reports[.csv]: `from`/`to` are UTC days, inclusive (default: the last 30 days); `groupBy` a comma list of day, casino, studio, game, currency. */
export const reportQuery = z.object({
  from: dayParam.optional(),
  to: dayParam.optional(),
  groupBy: z.string().max(100).default('day')
    .transform((s) => s.split(',').map((d) => d.trim()).filter(Boolean))
    .pipe(z.array(z.enum(DIMENSIONS)).max(5)),
  providerId: idParam.optional(),
  groupId: idParam.optional(),
  gameId: gameIdParam.optional(),
  currency: idParam.optional(),
}).strict();
export const reportPaging = z.object({ page: pageParam, limit: limitParam });

function filterOf(q: z.infer<typeof reportQuery>) {
  const toDay = q.to ?? today();
  return { fromDay: q.from ?? daysBefore(toDay, 29), toDay, providerId: q.providerId, groupId: q.groupId, gameId: q.gameId, currency: q.currency };
}

const METRIC_COLUMNS = ['bets', 'betSum', 'payoutSum', 'ggr', 'roundsSettled', 'roundsOpen', 'distinctPlayers'];

export function reportRoutes(deps: BackofficeDeps): Router {
  return Router()
    .get('/money/reports', handler(async (req, res) => {
      const { page, limit, ...q } = parse(reportQuery.extend(reportPaging.shape), req.query);
      const f = filterOf(q);
      const found = await report(deps, callerOf(req.identity), f, q.groupBy as Dimension[], { limit, offset: (page - 1) * limit });
      sendKeysetList(res, 'Report fetched successfully', found.rows, { total: found.total, page, limit, from: f.fromDay, to: f.toDay, groupBy: found.groupBy, totals: found.totals });
    }))
    .get('/money/reports.csv', handler(async (req, res) => {
      const q = parse(reportQuery, req.query);
      const f = filterOf(q);
      const dims = withCurrency(q.groupBy as Dimension[]);
      const caller = callerOf(req.identity);
      const named = { from: f.fromDay, to: f.toDay, groupBy: dims, providerId: f.providerId, groupId: f.groupId, gameId: f.gameId, currency: f.currency };
      await sendCsv(deps, req, res, 'report.csv', caller, named, [...dims.map((d) => REPORT_FIELDS[d]), ...METRIC_COLUMNS], () => exportReport(deps, caller, f, q.groupBy as Dimension[]));
    }));
}
