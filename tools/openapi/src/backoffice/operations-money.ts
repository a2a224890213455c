import { z } from 'zod';
import {
  decisionBody, itemFilter, walletHealthQuery, itemKey, itemPaging, reportPaging, reportQuery, roundFilter, roundPath, searchPaging, transactionSort, roundSort, transactionExportSort, roundExportSort, thresholdsBody, thresholdsPath,
  transactionFilter, transactionPath, winFilter, winPaging, winPath, ITEM_CSV_COLUMNS, ROUND_CSV_COLUMNS, TRANSACTION_CSV_COLUMNS, WIN_CSV_COLUMNS,
} from '@relay/backoffice';
import * as ex from './examples';
import type { BackofficeOperation } from './operation';
import * as res from './responses-money';

/** The money views: search, stories, the reconciliation queue, flagged wins, reports and their CSV exports. */

const CSV_HEAD = 'The first line is a `#` comment naming the scope and the filters of the export; then a header row; then one line per record, streamed as the database reads it (constant memory whatever the size). Text a spreadsheet would run as a formula is written with a leading apostrophe.';
/** What the query parameters mean (their schemas say only what text each accepts). */
const PARAMS: Record<string, string> = {
  groupId: 'Only this game provider (studio).',
  providerId: 'Only this casino.',
  gameId: 'Only this game (an integer).',
  playerId: 'Only this player of the casino.',
  roundId: 'Only this round.',
  sessionId: 'Only records of this session.',
  currency: 'Only this currency code.',
  transactionId: 'Only this transaction id (on rounds: the bet\'s).',
  reason: 'Only this cash-in reason (on rounds: the settlement\'s), e.g. `NORMAL_WIN`, `BET_LOST`.',
  amountMin: 'Amount at least this (inclusive; at most 2 decimals, compared exactly). On rounds: the bet.',
  amountMax: 'Amount at most this (inclusive; at most 2 decimals, compared exactly). On rounds: the bet.',
  from: 'Created at or after this ISO-8601 instant.',
  to: 'Created at or before this ISO-8601 instant.',
  limit: 'Rows per page, 1 to 500 (default 100).',
  page: 'Page number from 1 (default 1).',
  sortBy: 'The column the list is sorted by: `createdAt` (the default), on transactions `completedAt` or `amount`, on rounds `settledAt`, `betAmount` or `payoutAmount`. Empty values (an unfinished transaction\'s `completedAt`, an open round\'s `settledAt` and `payoutAmount`) come last in both directions; ties are broken by the record id.',
  sortOrder: '`desc` (newest or largest first, the default) or `asc`.',
  cursor: '`meta.nextCursor` of the previous page, with the same filters, `sortBy` and `sortOrder` (a cursor of another sort is `400 Bad Request`).',
  kind: 'The kind of item: `PENDING_ABANDONED`, `CREDIT_OWED`, `ROUND_OPEN` or `DEBIT_UNCLEAR`.',
  recordId: 'The transaction id of the item, or the round id for `ROUND_OPEN`.',
};
const REPORT_PARAMS: Record<string, string> = {
  ...PARAMS,
  from: 'First UTC day, inclusive (`YYYY-MM-DD`; default: 29 days before `to`).',
  to: 'Last UTC day, inclusive (`YYYY-MM-DD`; default: today).',
  groupBy: 'Comma list of `day`, `casino`, `studio`, `game`, `currency` (default `day`; currency is always added).',
};
const csvExample = (filters: string, columns: string[]) => `# scope: casino demo-casino; filters: ${filters}\n${columns.join(',')}\n`;

export const moneyOperations: BackofficeOperation[] = [
  {
    method: 'get', path: '/backoffice/v1/money/transactions', operationId: 'searchTransactions', tag: 'Search', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: 'Search transactions',
    description: 'Every filter of the game API\'s reporting plus `groupId`, `providerId`, `playerId`, status, category, reason, an amount range (`amountMin`/`amountMax`, inclusive, exact decimals) and a period (`from`/`to` on the creation time). `meta.totals` are exact over everything the filters match; walk long lists with `meta.nextCursor`.',
    query: transactionFilter.extend(transactionSort.shape).extend(searchPaging.shape),
    ok: { message: 'Transactions fetched successfully', data: z.array(res.transaction), example: [ex.transaction], meta: { schema: res.searchMeta(res.transactionTotals), example: ex.transactionsMeta } },
  },
  {
    method: 'get', path: '/backoffice/v1/money/transactions.csv', operationId: 'exportTransactions', tag: 'Search', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: 'Export transactions as CSV', description: 'The same filters and sorts as the search, every matching transaction; without `sortBy`/`sortOrder`, oldest first.', query: transactionFilter.extend(transactionExportSort.shape),
    csv: { description: CSV_HEAD, example: csvExample('status=FAILED', TRANSACTION_CSV_COLUMNS) },
  },
  {
    method: 'get', path: '/backoffice/v1/money/rounds', operationId: 'searchRounds', tag: 'Search', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: 'Search rounds',
    description: 'As the transaction search; `amountMin`/`amountMax` apply to the bet, `reason` to the settlement, `transactionId` to the bet. Totals carry bet and payout sums per currency.',
    query: roundFilter.extend(roundSort.shape).extend(searchPaging.shape),
    ok: { message: 'Rounds fetched successfully', data: z.array(res.round), example: [ex.round], meta: { schema: res.searchMeta(res.roundTotals), example: ex.roundsMeta } },
  },
  {
    method: 'get', path: '/backoffice/v1/money/rounds.csv', operationId: 'exportRounds', tag: 'Search', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: 'Export rounds as CSV', description: 'The same filters and sorts as the search, every matching round; without `sortBy`/`sortOrder`, oldest first.', query: roundFilter.extend(roundExportSort.shape),
    csv: { description: CSV_HEAD, example: csvExample('status=OPEN', ROUND_CSV_COLUMNS) },
  },
  {
    method: 'get', path: '/backoffice/v1/money/rounds/{providerId}/{roundId}/story', operationId: 'roundStory', tag: 'Stories', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: "A round's whole story",
    description: 'The round, each of its transactions oldest first, and for each transaction every attempt in order: what the game sent, what was sent to the casino (wallet token redacted), the casino\'s status and answer, how long it took and the error code given to the game; and the session it ran in (no wallet token). A round outside the caller\'s scope is the same `404` as a missing one.',
    path_: roundPath, ok: { message: 'Round story fetched successfully', data: res.roundStory, example: ex.roundStory }, errors: { 404: ['ROUND_NOT_FOUND'] },
  },
  {
    method: 'get', path: '/backoffice/v1/money/transactions/{providerId}/{transactionId}', operationId: 'transactionDetail', tag: 'Stories', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: "A transaction's detail", description: 'The transaction with its attempts, its round and session, and the link to the round\'s story.',
    path_: transactionPath, ok: { message: 'Transaction fetched successfully', data: res.transactionDetail, example: ex.transactionDetail }, errors: { 404: ['TRANSACTION_NOT_FOUND'] },
  },
  {
    method: 'get', path: '/backoffice/v1/money/reconciliation/items', operationId: 'listReconciliationItems', tag: 'Reconciliation', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: 'The reconciliation queue',
    description: 'What the ledger itself shows needs a person, oldest first: `PENDING_ABANDONED` (an attempt that never got an answer, older than `RECONCILIATION_PENDING_SECONDS`), `CREDIT_OWED` (a settling cash-in `FAILED` with no later success for the same bet), `ROUND_OPEN` (open longer than `RECONCILIATION_OPEN_ROUND_SECONDS`) and `DEBIT_UNCLEAR` (a debit that failed after the casino may have applied it). Each with its age, amounts, casino, studio, story link and a suggested action. `meta.counts` counts items by kind and age. The platform never moves money because of an item.',
    query: itemFilter.extend(itemPaging.shape),
    ok: { message: 'Reconciliation items fetched successfully', data: z.array(res.reconciliationItem), example: [ex.item], meta: { schema: res.queueMeta, example: ex.queueMeta } },
  },
  {
    method: 'get', path: '/backoffice/v1/money/reconciliation/items.csv', operationId: 'exportReconciliationItems', tag: 'Reconciliation', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: 'Export the reconciliation queue as CSV', description: 'The same filters as the list.', query: itemFilter,
    csv: { description: CSV_HEAD, example: csvExample('kind=CREDIT_OWED', ITEM_CSV_COLUMNS) },
  },
  {
    method: 'get', path: '/backoffice/v1/money/reconciliation/items/{kind}/{providerId}/{recordId}', operationId: 'getReconciliationItem', tag: 'Reconciliation', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: 'One reconciliation item', description: 'Live, or `CLOSED_BY_LEDGER` once the ledger resolved it (the game repeated the credit, the round settled). `recordId` is the transaction id, or the round id for `ROUND_OPEN`.',
    path_: itemKey, ok: { message: 'Reconciliation item fetched successfully', data: z.union([res.reconciliationItem, res.closedItem]), example: ex.item }, errors: { 404: ['NOT_FOUND'] },
  },
  {
    method: 'post', path: '/backoffice/v1/money/reconciliation/items/{kind}/{providerId}/{recordId}/acknowledge', operationId: 'acknowledgeReconciliationItem', tag: 'Reconciliation', access: 'write', parameterText: PARAMS, permission: 'reconciliation:act',
    summary: 'Acknowledge an item', description: '`OPEN -> ACKNOWLEDGED`, with a note; audited with who did it.',
    path_: itemKey, body: { schema: decisionBody, example: { note: 'Asked the studio to retry' } },
    ok: { message: 'Reconciliation item acknowledged', data: res.reconciliationItem, example: ex.itemAcknowledged }, errors: { 404: ['NOT_FOUND'], 409: ['STATE_CONFLICT'] },
  },
  {
    method: 'post', path: '/backoffice/v1/money/reconciliation/items/{kind}/{providerId}/{recordId}/resolve', operationId: 'resolveReconciliationItem', tag: 'Reconciliation', access: 'write', parameterText: PARAMS, permission: 'reconciliation:act',
    summary: 'Resolve an item', description: '`OPEN` or `ACKNOWLEDGED` -> `RESOLVED`, with a note saying what was done; audited. An item the ledger closed already is `409`.',
    path_: itemKey, body: { schema: decisionBody, example: { note: 'The casino confirmed the refund' } },
    ok: { message: 'Reconciliation item resolved', data: res.reconciliationItem, example: { ...ex.itemAcknowledged, state: 'RESOLVED', note: 'The casino confirmed the refund' } }, errors: { 404: ['NOT_FOUND'], 409: ['STATE_CONFLICT'] },
  },
  {
    method: 'get', path: '/backoffice/v1/money/flagged-wins', operationId: 'listFlaggedWins', tag: 'Flagged wins', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: 'Flagged wins',
    description: 'Paid credits above the casino\'s payout threshold for their currency, or above its multiplier threshold, for review (`FLAGGED -> REVIEWED`). Without `from`/`to` the last 30 days.',
    query: winFilter.extend(winPaging.shape),
    ok: { message: 'Flagged wins fetched successfully', data: z.array(res.flaggedWin), example: [ex.flaggedWin], meta: { schema: res.winsMeta, example: ex.winsMeta } },
  },
  {
    method: 'get', path: '/backoffice/v1/money/flagged-wins.csv', operationId: 'exportFlaggedWins', tag: 'Flagged wins', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: 'Export flagged wins as CSV', description: 'The same filters as the list.', query: winFilter,
    csv: { description: CSV_HEAD, example: csvExample('state=FLAGGED', WIN_CSV_COLUMNS) },
  },
  {
    method: 'post', path: '/backoffice/v1/money/flagged-wins/{providerId}/{transactionId}/review', operationId: 'reviewFlaggedWin', tag: 'Flagged wins', access: 'write', parameterText: PARAMS, permission: 'wins:review',
    summary: 'Review a flagged win', description: '`FLAGGED -> REVIEWED` with a note; audited. A second review is `409`.',
    path_: winPath, body: { schema: decisionBody, example: { note: 'Checked the game log: a fair win' } },
    ok: { message: 'Win reviewed', data: res.flaggedWin, example: ex.winReviewed }, errors: { 404: ['NOT_FOUND'], 409: ['STATE_CONFLICT'] },
  },
  {
    method: 'get', path: '/backoffice/v1/money/flag-thresholds', operationId: 'listFlagThresholds', tag: 'Flagged wins', access: 'read', parameterText: PARAMS, permission: 'wins:thresholds',
    summary: "Every casino's flag thresholds", description: 'Each casino by `providerId`, with its own thresholds and who last set them, or the platform defaults (`isDefault: true`).',
    ok: { message: 'Flag thresholds fetched successfully', data: z.array(res.casinoThresholds), example: ex.casinoThresholds },
  },
  {
    method: 'get', path: '/backoffice/v1/money/flag-thresholds/{providerId}', operationId: 'getFlagThresholds', tag: 'Flagged wins', access: 'read', parameterText: PARAMS, permission: 'wins:thresholds',
    summary: "A casino's flag thresholds", description: 'The casino\'s own, or the platform defaults (`isDefault: true`: payouts over 10000 in any currency, multipliers over 500).',
    path_: thresholdsPath, ok: { message: 'Flag thresholds fetched successfully', data: res.thresholds, example: ex.thresholds }, errors: { 404: ['PROVIDER_NOT_FOUND'] },
  },
  {
    method: 'put', path: '/backoffice/v1/money/flag-thresholds/{providerId}', operationId: 'setFlagThresholds', tag: 'Flagged wins', access: 'write', parameterText: PARAMS, permission: 'wins:thresholds',
    summary: "Set a casino's flag thresholds", description: 'A payout threshold per currency (`*` for the others) and one multiplier threshold; applied to every win at read time. Audited.',
    path_: thresholdsPath, body: { schema: thresholdsBody, example: ex.thresholdsBody },
    ok: { message: 'Flag thresholds saved', data: res.thresholds, example: ex.thresholds }, errors: { 404: ['PROVIDER_NOT_FOUND'] },
  },
  {
    method: 'get', path: '/backoffice/v1/money/reports', operationId: 'moneyReport', tag: 'Reports', access: 'read', parameterText: REPORT_PARAMS, permission: 'reports:read',
    summary: 'Bets, payouts and GGR per day, casino, studio, game and currency',
    description: '`from`/`to` are UTC days, inclusive (default: the last 30 days). `groupBy` is a comma list of `day`, `casino`, `studio`, `game`, `currency` (currency is always added: money never mixes currencies). Each row: number of bets, bet sum, payout sum, GGR (bets minus payouts), rounds settled, rounds open, distinct players (players with a successful bet; a player id belongs to its casino, so the same id at two casinos counts as two players), exact to the cent; `meta.totals` per currency over the whole period.',
    query: reportQuery.extend(reportPaging.shape),
    ok: { message: 'Report fetched successfully', data: z.array(res.reportRow), example: [ex.reportRow], meta: { schema: res.reportMeta, example: ex.reportMeta } },
  },
  {
    method: 'get', path: '/backoffice/v1/money/reports.csv', operationId: 'exportMoneyReport', tag: 'Reports', access: 'read', parameterText: REPORT_PARAMS, permission: 'reports:read',
    summary: 'Export a report as CSV', description: 'The same period, grouping and filters as the report, every group.', query: reportQuery,
    csv: { description: CSV_HEAD, example: '# scope: casino demo-casino; filters: from=2026-11-01, to=2026-11-30, groupBy=day+currency\nday,currency,bets,betSum,payoutSum,ggr,roundsSettled,roundsOpen,distinctPlayers\n' },
  },
  {
    method: 'get', path: '/backoffice/v1/money/wallet-health', operationId: 'walletHealth', tag: 'Reports', access: 'read', parameterText: PARAMS, permission: 'money:read',
    summary: 'Each casino\'s wallet as the relay sees it: latency and error rate by operation',
    description: 'From the relay\'s own records of every debit and credit attempt started in the last hour and the last day (transactions created in the last 32 days), per casino in scope and operation: finished attempts, how many the casino accepted, declined (4xx, a business answer) or failed (5xx, time-out, no connection, unusable answer), the error rate (failed / finished) and the p50 and p99 of the time from the call to its answer. Balance calls are not recorded in the ledger and are not counted (the `casino_calls_total` metric counts them).',
    query: walletHealthQuery,
    ok: { message: 'Wallet health fetched successfully', data: z.array(res.walletHealth), example: [ex.walletHealth] },
  },
];
