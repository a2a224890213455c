import { AppError } from '@relay/shared';
import { presentRound, presentTransaction, isoOrNull, type LedgerFilter, type LedgerTable } from '../data/ledger';
import { decodeCursor, searchPage, searchStream, searchTotals, type Sort } from '../data/search';
import * as story from '../data/story';
import { authorize, type Caller } from './access';
import type { BackofficeDeps } from './deps';
import { jsonNumber } from '../data/ledger';

/** Search, a round's story and a transaction's detail: reads only, from the read handle, in the caller's scope. */

const PRESENT: Record<LedgerTable, (row: Record<string, unknown>) => Record<string, unknown>> = { transactions: presentTransaction, rounds: presentRound };

export async function search(deps: BackofficeDeps, caller: Caller, table: LedgerTable, filter: LedgerFilter, page: { limit: number; sort: Sort; cursor?: string }) {
  authorize(caller, 'money:read');
  const after = page.cursor ? decodeCursor(page.cursor, table, page.sort) : undefined;
  const [found, totals] = await Promise.all([
    searchPage(deps.reporting, table, caller.scope, filter, page.limit, page.sort, after),
    searchTotals(deps.reporting, table, caller.scope, filter),
  ]);
  return {
    rows: found.rows.map(PRESENT[table]),
    next: found.next,
    totals: {
      count: totals.reduce((n, t) => n + Number(t.count), 0),
      byCurrency: totals.map((t) => ({
        currency: t.currency,
        count: Number(t.count),
        ...(table === 'transactions' ? { amount: jsonNumber(t.amount) } : { betAmount: jsonNumber(t.bet_amount), payoutAmount: jsonNumber(t.payout_amount) }),
      })),
    },
  };
}

/** Authorizes before the first byte is sent (a generator would only run at its first row). */
export function exportSearch(deps: BackofficeDeps, caller: Caller, table: LedgerTable, filter: LedgerFilter, sort?: Sort): AsyncIterable<Record<string, unknown>> {
  authorize(caller, 'money:read');
  return mapRows(searchStream(deps.reporting, table, caller.scope, filter, sort), PRESENT[table]);
}

/** Maps a row stream lazily, one row at a time. */
export async function* mapRows<T>(rows: AsyncIterable<Record<string, unknown>>, present: (row: Record<string, unknown>) => T): AsyncGenerator<T> {
  for await (const row of rows) yield present(row);
}

/** A round's whole story; out of scope is the same 404 as missing. */
export async function roundStory(deps: BackofficeDeps, caller: Caller, providerId: string, roundId: string) {
  authorize(caller, 'money:read');
  const round = await story.findRound(deps.reporting, caller.scope, providerId, roundId);
  if (!round) throw new AppError('ROUND_NOT_FOUND', 'No such round');
  const transactions = await story.roundTransactions(deps.reporting, caller.scope, providerId, roundId);
  const [attempts, session, notifications] = await Promise.all([
    story.attemptsOf(deps.reporting, transactions.map((t) => String(t.id))),
    story.findSession(deps.reporting, caller.scope, String(round.session_id)),
    story.roundEndedNotifications(deps.reporting, caller.scope, providerId, roundId),
  ]);
  return {
    round: presentRound(round),
    transactions: transactions.map((t) => withAttempts(t, attempts, session)),
    session: session ? presentSession(session) : null,
    // Each round-ended call the game made for this round and what the casino answered ('ok' or the relay code).
    roundEndedNotifications: notifications.map((n) => ({
      providerId: String(n.provider_id),
      outcome: String(n.outcome),
      errorMessage: n.error_message === null ? null : String(n.error_message),
      requestId: n.request_id === null ? null : String(n.request_id),
      notifiedAt: new Date(n.notified_at as string).toISOString(),
    })),
  };
}

export async function transactionDetail(deps: BackofficeDeps, caller: Caller, providerId: string, transactionId: string) {
  authorize(caller, 'money:read');
  const t = await story.findTransaction(deps.reporting, caller.scope, providerId, transactionId);
  if (!t) throw new AppError('TRANSACTION_NOT_FOUND', 'No such transaction');
  const [attempts, session, round] = await Promise.all([
    story.attemptsOf(deps.reporting, [String(t.id)]),
    story.findSession(deps.reporting, caller.scope, String(t.session_id)),
    story.findRound(deps.reporting, caller.scope, providerId, String(t.round_id)),
  ]);
  return {
    transaction: withAttempts(t, attempts, session),
    round: round ? presentRound(round) : null,
    session: session ? presentSession(session) : null,
    storyLink: storyLink(providerId, String(t.round_id)),
  };
}

export function storyLink(providerId: string, roundId: string): string {
  return `/backoffice/v1/money/rounds/${encodeURIComponent(providerId)}/${encodeURIComponent(roundId)}/story`;
}

function withAttempts(t: Record<string, unknown>, all: story.AttemptRow[], session: Record<string, unknown> | undefined) {
  const mine = all.filter((a) => a.transaction_pk === t.id);
  return { ...presentTransaction(t), attemptLog: mine.map((a) => presentAttempt(t, a, session)) };
}

const CASINO_FIELDS = ['roundId', 'transactionId', 'amount', 'reason', 'appliedMultiplier', 'betAmount', 'previousTransactionId', 'awardId', 'campaignId', 'isLastFreebet'];

/**
 * One attempt as support needs it. The relay does not store the body it sent the casino; it is
 * rebuilt here the way the wallet builds it (the session's player fields plus the game's money
 * fields), with the wallet token shown as redacted, never read.
 */
function presentAttempt(t: Record<string, unknown>, a: story.AttemptRow, session: Record<string, unknown> | undefined) {
  const request = (typeof a.request === 'object' && a.request !== null ? a.request : {}) as Record<string, unknown>;
  const sent: Record<string, unknown> = {
    providerId: t.provider_id,
    playerId: t.player_id,
    walletToken: '[REDACTED]',
    sessionId: t.session_id,
    gameId: t.game_id,
    currency: session?.currency ?? t.currency,
  };
  for (const f of CASINO_FIELDS) if (request[f] !== undefined) sent[f] = request[f];
  if (t.category === 'CASH_IN') sent.isRetry = t.is_retry;
  return {
    attempt: a.attempt,
    startedAt: isoOrNull(a.started_at),
    finishedAt: isoOrNull(a.finished_at),
    durationMs: a.duration_ms,
    outcome: a.outcome ?? 'NO_ANSWER_RECORDED',
    fromGame: request,
    sentToCasino: sent,
    casinoStatus: a.casino_status,
    casinoAnswer: a.casino_body,
    errorCodeToGame: a.error_code,
    errorMessage: a.error_message,
  };
}

function presentSession(s: Record<string, unknown>) {
  return {
    sessionId: s.session_id,
    providerId: s.provider_id,
    groupId: s.group_id,
    gameId: s.game_id,
    playerId: s.player_id,
    currency: s.currency,
    language: s.language,
    username: s.username ?? null,
    createdAt: isoOrNull(s.created_at),
    expiresAt: isoOrNull(s.expires_at),
  };
}
