import { AppError, money, toJsonNumber } from '@relay/shared';
import { DIMENSIONS, reportRows, reportStream, type Dimension, type ReportFilter } from '../data/reports';
import { authorize, type Caller } from './access';
import type { BackofficeDeps } from './deps';
import { mapRows } from './money';

/**
 * Reports per UTC day, casino, studio, game and currency in any grouping, with totals per
 * currency. Money never mixes currencies, so currency is always a dimension. GGR is bets minus
 * payouts in exact decimals (decimal.js over the NUMERIC text), a JSON number only at the edge.
 */

const FIELD: Record<Dimension, string> = { day: 'day', casino: 'providerId', studio: 'groupId', game: 'gameId', currency: 'currency' };

export function withCurrency(dims: Dimension[]): Dimension[] {
  const set = new Set<Dimension>([...dims, 'currency']);
  return DIMENSIONS.filter((d) => set.has(d));
}

export function presentReportRow(dims: Dimension[], r: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const d of dims) out[FIELD[d]] = r[d];
  const bet = money(String(r.bet_sum));
  const payout = money(String(r.payout_sum));
  return {
    ...out,
    bets: Number(r.bets),
    betSum: toJsonNumber(bet),
    payoutSum: toJsonNumber(payout),
    ggr: toJsonNumber(bet.minus(payout)),
    roundsSettled: Number(r.rounds_settled),
    roundsOpen: Number(r.rounds_open),
    distinctPlayers: Number(r.players),
  };
}

export function checkPeriod(f: ReportFilter): void {
  if (f.fromDay > f.toDay) throw new AppError('Bad Request', 'Validation failed: from: must not be after to');
}

export async function report(deps: BackofficeDeps, caller: Caller, f: ReportFilter, groupBy: Dimension[], page: { limit: number; offset: number }) {
  authorize(caller, 'reports:read');
  checkPeriod(f);
  const dims = withCurrency(groupBy);
  // The page, the number of groups and the totals per currency, from one snapshot (data/reports).
  const found = await reportRows(deps.reporting, caller.scope, f, dims, page);
  return {
    rows: found.rows.map((r) => presentReportRow(dims, r)),
    total: found.total,
    groupBy: dims.map((d) => FIELD[d]),
    totals: found.totals.map((r) => presentReportRow(['currency'], r)),
  };
}

/** Checks role and input before the first byte is sent, then yields rows as the cursor reads them. */
export function exportReport(deps: BackofficeDeps, caller: Caller, f: ReportFilter, groupBy: Dimension[]): AsyncIterable<Record<string, unknown>> {
  authorize(caller, 'reports:read');
  checkPeriod(f);
  const dims = withCurrency(groupBy);
  return mapRows(reportStream(deps.reporting, caller.scope, f, dims), (row) => presentReportRow(dims, row));
}

export const REPORT_FIELDS = FIELD;
