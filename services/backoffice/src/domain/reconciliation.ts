import { AppError } from '@relay/shared';
import * as queue from '../data/reconciliation';
import type { ItemFilter, ItemKind, Thresholds } from '../data/reconciliation';
import { isoOrNull, jsonNumber } from '../data/ledger';
import * as story from '../data/story';
import { authorize, type Caller } from './access';
import { audited, type RequestFacts } from './audit';
import type { BackofficeDeps } from './deps';
import { mapRows, storyLink } from './money';

/**
 * The reconciliation queue: what the ledger shows needs a person, with a suggested action from
 * the spec's handling rules. A person acknowledges and resolves items with a note (audited); the
 * platform never moves money because of an item.
 */

export function thresholdsOf(deps: BackofficeDeps): Thresholds {
  return { pendingSeconds: deps.config.RECONCILIATION_PENDING_SECONDS, openRoundSeconds: deps.config.RECONCILIATION_OPEN_ROUND_SECONDS };
}

const SUGGESTED: Record<ItemKind, (i: Record<string, unknown>) => string> = {
  PENDING_ABANDONED: (i) =>
    `No casino answer was recorded for ${i.category === 'CASH_OUT' ? 'debit' : 'credit'} ${i.transaction_id}. The game repeats the identical request with the same transactionId; the casino's idempotency answers with what it did the first time. Ask the studio to do so if it does not.`,
  CREDIT_OWED: (i) =>
    `The player is owed ${jsonNumber(i.amount as string)} ${i.currency} (credit ${i.transaction_id} failed with ${i.error_code ?? 'an error'}). The game must repeat the credit (the cash-in retry route, same transactionId) until it succeeds; the relay never pays on its own.`,
  ROUND_OPEN: (i) =>
    `Bet ${i.transaction_id} of ${jsonNumber(i.amount as string)} ${i.currency} has no settlement. Ask the studio to settle the round (a win, BET_LOST, or a refund) or confirm it is still running.`,
  DEBIT_UNCLEAR: (i) =>
    `Debit ${i.transaction_id} of ${jsonNumber(i.amount as string)} ${i.currency} failed with ${i.error_code} after the casino may have applied it. Ask the casino whether it took the money; if it did, the game repeats the debit with the same transactionId (the casino answers its stored outcome), or refunds it with a CASHOUT_FAILED cash-in where the casino refunds failed cash-outs.`,
};

export function presentItem(i: Record<string, unknown>) {
  const kind = i.kind as ItemKind;
  return {
    kind,
    providerId: i.provider_id as string,
    recordId: i.record_id as string,
    groupId: i.group_id as string,
    gameId: i.game_id as number,
    playerId: i.player_id as string,
    roundId: i.round_id as string,
    transactionId: i.transaction_id as string,
    category: i.category as string,
    amount: jsonNumber(i.amount as string),
    currency: i.currency as string,
    errorCode: (i.error_code as string | null) ?? null,
    since: isoOrNull(i.since),
    ageSeconds: Number(i.age_seconds),
    state: i.state as string,
    note: (i.note as string | null) ?? null,
    decidedBy: (i.decided_by as string | null) ?? null,
    decidedAt: isoOrNull(i.decided_at),
    suggestedAction: SUGGESTED[kind](i),
    storyLink: storyLink(i.provider_id as string, i.round_id as string),
  };
}

export async function listQueue(deps: BackofficeDeps, caller: Caller, filter: ItemFilter, page: { limit: number; offset: number }) {
  authorize(caller, 'money:read');
  const { rows, counts } = await queue.listItems(deps.reporting, caller.scope, thresholdsOf(deps), filter, page);
  return { items: rows.map(presentItem), counts, total: counts.reduce((n, c) => n + c.count, 0) };
}

export function exportQueue(deps: BackofficeDeps, caller: Caller, filter: ItemFilter): AsyncIterable<Record<string, unknown>> {
  authorize(caller, 'money:read');
  return mapRows(queue.streamItems(deps.reporting, caller.scope, thresholdsOf(deps), filter), presentItem);
}

/** One item: live, or closed by the ledger (its record exists in scope but no longer needs anyone). */
export async function getItem(deps: BackofficeDeps, caller: Caller, kind: ItemKind, providerId: string, recordId: string) {
  authorize(caller, 'money:read');
  const live = await liveItem(deps, caller, kind, providerId, recordId, deps.reporting);
  if (live) return live;
  const record = kind === 'ROUND_OPEN'
    ? await story.findRound(deps.reporting, caller.scope, providerId, recordId)
    : await story.findTransaction(deps.reporting, caller.scope, providerId, recordId);
  if (!record) throw new AppError('NOT_FOUND', 'No such reconciliation item');
  const decision = await queue.findDecision(deps.reporting, caller.scope, kind, providerId, recordId);
  return {
    kind,
    providerId,
    recordId,
    state: 'CLOSED_BY_LEDGER',
    recordStatus: record.status as string,
    note: decision?.note ?? null,
    decidedBy: decision?.decided_by ?? null,
    storyLink: storyLink(providerId, String(record.round_id)),
  };
}

async function liveItem(deps: BackofficeDeps, caller: Caller, kind: ItemKind, providerId: string, recordId: string, read = deps.reporting) {
  const { rows } = await queue.listItems(read, caller.scope, thresholdsOf(deps), { kind, providerId, recordId }, { limit: 1, offset: 0 });
  return rows.length ? presentItem(rows[0]) : null;
}

const NEXT: Record<'acknowledge' | 'resolve', { from: string[]; to: 'ACKNOWLEDGED' | 'RESOLVED' }> = {
  acknowledge: { from: ['OPEN'], to: 'ACKNOWLEDGED' },
  resolve: { from: ['OPEN', 'ACKNOWLEDGED'], to: 'RESOLVED' },
};

/**
 * OPEN -> ACKNOWLEDGED -> RESOLVED, with a note and who, recorded in the audit trail. The item is
 * read from the reporting database like every money view; the step itself is decided by the money
 * database (saveDecision writes only from the states the step allows), so an item read a moment
 * behind can only be refused, never decided twice.
 */
export async function decide(deps: BackofficeDeps, facts: RequestFacts, action: 'acknowledge' | 'resolve', kind: ItemKind, providerId: string, recordId: string, note: string) {
  authorize(facts.caller, 'reconciliation:act');
  const item = await liveItem(deps, facts.caller, kind, providerId, recordId);
  if (!item) {
    const closed = await getItem(deps, facts.caller, kind, providerId, recordId); // 404 when it never was in scope
    throw new AppError('STATE_CONFLICT', `The ledger already resolved this item (${closed.state})`);
  }
  const step = NEXT[action];
  if (!step.from.includes(item.state)) throw new AppError('STATE_CONFLICT', `An item that is ${item.state} cannot be ${step.to === 'RESOLVED' ? 'resolved' : 'acknowledged'}`);
  const saved = await audited(deps, facts, `reconciliation.${action}`, async (trx) => {
    const after = await queue.saveDecision(trx, {
      kind, provider_id: providerId, record_id: recordId, group_id: item.groupId, state: step.to, note, decided_by: facts.caller.actorId,
    }, step.from.filter((s) => s !== 'OPEN'));
    if (!after) throw new AppError('STATE_CONFLICT', 'Someone else decided this item meanwhile; reload it');
    return { result: after, target: `reconciliation/${kind}/${providerId}/${recordId}`, before: { state: item.state, note: item.note }, after: { state: after.state, note: after.note } };
  });
  return { ...item, state: saved.state, note: saved.note, decidedBy: saved.decided_by, decidedAt: isoOrNull(saved.decided_at) };
}
