import { AppError, money, toJsonNumber } from '@relay/shared';
import * as wins from '../data/wins';
import type { Thresholds, WinFilter } from '../data/wins';
import { isoOrNull, presentTransaction } from '../data/ledger';
import { authorize, type Caller } from './access';
import { audited, type RequestFacts } from './audit';
import type { BackofficeDeps } from './deps';
import { mapRows, storyLink } from './money';

/** Flagged wins for review (FLAGGED -> REVIEWED) and the per-casino thresholds platform admins set. */

function presentWin(row: Record<string, unknown>) {
  const t = presentTransaction(row);
  const payoutOver = toJsonNumber(row.payout_over as string);
  const multiplierOver = toJsonNumber(row.multiplier_over as string);
  return {
    ...t,
    state: row.reviewed_at ? 'REVIEWED' : 'FLAGGED',
    // Compared as exact decimals, as the query did.
    flaggedFor: [
      ...(money(row.amount as string).gt(money(row.payout_over as string)) ? ['PAYOUT'] : []),
      ...(row.applied_multiplier !== null && money(row.applied_multiplier as string).gt(money(row.multiplier_over as string)) ? ['MULTIPLIER'] : []),
    ],
    payoutOver,
    multiplierOver,
    reviewNote: (row.review_note as string | null) ?? null,
    reviewedBy: (row.reviewed_by as string | null) ?? null,
    reviewedAt: isoOrNull(row.reviewed_at),
    storyLink: storyLink(t.providerId, t.roundId),
  };
}

export async function listFlaggedWins(deps: BackofficeDeps, caller: Caller, filter: WinFilter, page: { limit: number; offset: number }) {
  authorize(caller, 'money:read');
  const { rows, total } = await wins.listFlagged(deps.reporting, caller.scope, filter, page);
  return { rows: rows.map(presentWin), total };
}

export function exportFlaggedWins(deps: BackofficeDeps, caller: Caller, filter: WinFilter): AsyncIterable<Record<string, unknown>> {
  authorize(caller, 'money:read');
  return mapRows(wins.streamFlagged(deps.reporting, caller.scope, filter), presentWin);
}

export async function reviewWin(deps: BackofficeDeps, facts: RequestFacts, providerId: string, transactionId: string, note: string) {
  authorize(facts.caller, 'wins:review');
  // Read from the reporting database; the money database's unique review decides who was first.
  const { rows } = await wins.listFlagged(deps.reporting, facts.caller.scope, { providerId, transactionId }, { limit: 1, offset: 0 });
  if (rows.length === 0) throw new AppError('NOT_FOUND', 'No such flagged win');
  const win = presentWin(rows[0]);
  if (win.state === 'REVIEWED') throw new AppError('STATE_CONFLICT', 'This win was already reviewed');
  const saved = await audited(deps, facts, 'flagged-win.review', async (trx) => {
    const review = await wins.saveReview(trx, { transaction_pk: win.id, provider_id: providerId, group_id: win.groupId, note, reviewed_by: facts.caller.actorId });
    if (!review) throw new AppError('STATE_CONFLICT', 'Someone else reviewed this win meanwhile');
    return { result: review, target: `flagged-win/${providerId}/${transactionId}`, before: { state: 'FLAGGED' }, after: { state: 'REVIEWED', note } };
  });
  return { ...win, state: 'REVIEWED', reviewNote: saved.note, reviewedBy: saved.reviewed_by, reviewedAt: isoOrNull(saved.reviewed_at) };
}

function presentThresholds(providerId: string, t: Thresholds, isDefault: boolean) {
  return {
    providerId,
    isDefault,
    multiplierOver: toJsonNumber(t.multiplierOver),
    payoutOver: Object.fromEntries(Object.entries(t.payoutOver).map(([c, v]) => [c, toJsonNumber(v)])),
  };
}

/** Every casino's thresholds (its own, or the defaults), with who last set them; platform admins only. */
export async function listAllThresholds(deps: BackofficeDeps, caller: Caller) {
  authorize(caller, 'wins:thresholds');
  const rows = await wins.listThresholds(deps.db);
  return rows.map((r) => {
    const own = r.multiplier_over === null ? null : { multiplierOver: String(r.multiplier_over), payoutOver: r.payout_over as Record<string, string> };
    return {
      ...presentThresholds(String(r.provider_id), own ?? wins.DEFAULT_THRESHOLDS, own === null),
      name: String(r.name),
      status: String(r.status),
      updatedBy: (r.updated_by as string | null) ?? null,
      updatedAt: isoOrNull(r.updated_at),
    };
  });
}

export async function getThresholds(deps: BackofficeDeps, caller: Caller, providerId: string) {
  authorize(caller, 'wins:thresholds');
  if (!(await wins.casinoExists(deps.db, providerId))) throw new AppError('PROVIDER_NOT_FOUND', 'No such casino');
  const own = await wins.findThresholds(deps.db, providerId);
  return presentThresholds(providerId, own ?? wins.DEFAULT_THRESHOLDS, own === null);
}

export async function setThresholds(deps: BackofficeDeps, facts: RequestFacts, providerId: string, t: Thresholds) {
  authorize(facts.caller, 'wins:thresholds');
  if (!(await wins.casinoExists(deps.db, providerId))) throw new AppError('PROVIDER_NOT_FOUND', 'No such casino');
  return audited(deps, facts, 'flag-thresholds.set', async (trx) => {
    const before = await wins.findThresholds(trx, providerId);
    await wins.saveThresholds(trx, providerId, t, facts.caller.actorId);
    return { result: presentThresholds(providerId, t, false), target: `flag-thresholds/${providerId}`, before, after: t };
  });
}
