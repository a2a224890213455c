import { z } from 'zod';
import { launchQuery } from '@relay/launcher';
import { balanceQuery, cashInBody, cashOutBody, validateSessionQuery } from '@relay/wallet';
import { roundEndedBody } from '@relay/notifier';
import { casinoIdsQuery, catalogQuery, listRoundsQuery, listTransactionsQuery, roundPath, transactionPath } from '@relay/reporting';
import { ApiDocument } from '../document';
import { envelope } from '../envelope';
import { award, awardExample } from '../free-rounds';
import { ERRORS } from './errors';
import * as ex from './examples';
import * as res from './responses';
import { VERSION } from '../version';

const sessionPath = z.object({ sessionId: z.string().meta({ description: 'The `sessionId` the launch added to the game address.' }) });

const DESCRIPTION = `What a game studio's backend calls. The relay opens a player session when a casino sends the player
to \`/launch\`; the game backend then validates that session and moves money against it, and the relay
relays every call to that casino's wallet, recording each round and transaction.

**Authentication.** Every route except \`/launch\` takes \`Authorization: Bearer <game provider token>\`. The
token is issued by the platform team, shown once, and must stay on the game backend (never in a browser).
It sees only its own game provider's games, sessions, rounds and transactions.

**Two response styles.** The wallet routes (\`/api/account\`, \`/api/balance/...\`, \`/api/round-ended\`) answer
raw bodies and fail with \`{"error": CODE, "message": text}\`. Everything under \`/api/v1/\` answers an
envelope \`{"statusCode", "message", "data"}\` (lists add \`meta\` with \`total\`, \`page\`, \`limit\`,
\`totalPages\`) and fails with \`{"statusCode", "message", "error", "data": null}\` (a validation failure
adds \`details\`). Branch on the code, never on the message.

**Money.** Amounts are JSON numbers with at most two decimals, never strings; \`10.005\` is refused, not
rounded. Balances are rounded half-up to cents. Identifiers the game generates (\`roundId\`,
\`transactionId\`) must not contain \`:\` and are unique per casino.

**Idempotency.** \`transactionId\` is the idempotency key of a money call, per casino. Sending the same one
again replays a success (same answer, the casino is not called), makes a fresh attempt after a failure,
and answers \`409 TRANSACTION_IN_FLIGHT\` with \`Retry-After\` while an earlier attempt is still running.
Every distinct movement takes a fresh \`transactionId\`. The guide *Integrating a game* (docs/integrating-a-game.md)
gives the handling rule of every error.

**Rate limit.** Each game provider has a request budget per second across all gateways; beyond it the
answer is \`429 RATE_LIMITED\` with \`Retry-After\`.`;

export function gameDocument(): Record<string, unknown> {
  const doc = new ApiDocument(
    { title: 'Game Relay: game API', version: VERSION, description: DESCRIPTION },
    {
      servers: [{ url: '/', description: 'The gateway this reference is served from' }],
      securitySchemes: { gameProviderToken: { type: 'http', scheme: 'bearer', description: 'The game provider token issued through the admin API.' } },
      security: [{ gameProviderToken: [] }],
      tags: [
        { name: 'Launch', description: 'Where a casino sends the player.' },
        { name: 'Wallet', description: 'Session validation, balance and money movements, relayed to the casino wallet.' },
        { name: 'Rounds', description: 'Round-ended notifications to casinos.' },
        { name: 'Casinos', description: 'Casino ids and their configuration of the caller\'s games.' },
        { name: 'Reporting', description: 'Read-only rounds and transactions for reconciliation, support and disputes.' },
      ],
    },
  );
  const listText = {
    page: '1-based page number; default 1. Served by skipping index entries, so a page costs more the deeper it is; walk long lists with `cursor` instead.',
    limit: 'Page size; default 20, at most 100.',
    cursor: 'Keyset paging: `start` for the first page, then `meta.nextCursor` of the previous answer with the same filters and sort, until it is null. Every page costs the same however deep; the answer\'s `meta` is then `{limit, nextCursor}`, with the exact `total` on the first page only. Not with `page`. A cursor of another list or sort is refused with 400.',
  };

  doc.add({
    method: 'get', path: '/launch', operationId: 'launch', tag: 'Launch', security: [],
    summary: 'Open a player session and send the browser to the game',
    description: `Called by the player's browser, sent by the casino. The \`token\` is the casino's encrypted launch token (see
the casino guide). On success the relay stores a session for one day and redirects to the game's registered
address with \`sessionId\` added, \`token\` removed, and every other parameter forwarded (or, when the game
provider published a public key, sealed into one \`payload\` parameter). No casino wallet is called here.
A failure is never a redirect: JSON, or an HTML page when the browser prefers \`text/html\`.`,
    query: launchQuery,
    parameterText: {
      token: "The casino's launch token: a JWE (`dir`, `A256GCM`) sealed with the casino's launch key.",
      providerId: 'The casino id; must equal the token\'s `providerId` claim.',
      gameId: 'The game, a positive integer.',
      backtoHome: 'Link back to the casino lobby, forwarded to the game; an absolute http(s) URL.',
    },
    success: {
      status: 302,
      description: "Redirect to the game's registered frontend address.",
      headers: {
        Location: {
          description: 'The registered `frontendUrl` with `sessionId` and the forwarded launch parameters.',
          required: true,
          schema: { type: 'string', examples: [`https://game.example.com/play?skin=dark&sessionId=${ex.SESSION_ID}&providerId=demo-casino&gameId=7001&currency=EUR&language=en`] },
        },
      },
    },
    errorStyle: 'wallet',
    errors: ERRORS.launch,
    htmlErrors: true,
  });

  doc.add({
    method: 'get', path: '/api/v1/sessions/{sessionId}', operationId: 'validateSession', tag: 'Wallet',
    summary: 'Validate a session',
    description: `A 200 means the session exists, was opened for this game (and currency, when given), the game belongs to the
caller and is active, and the casino has just confirmed the player with a live balance call. Use
\`providerId\`, \`playerId\`, \`currency\` and \`language\` from here, not from the launch parameters.`,
    path_: sessionPath,
    query: validateSessionQuery,
    parameterText: { gameId: 'The game the session must belong to.', currency: "Compared case-insensitively with the session's currency." },
    success: { status: 200, description: 'Message `Session is valid`.', schema: envelope(res.session), example: { statusCode: 200, message: 'Session is valid', data: ex.session } },
    errorStyle: 'envelope',
    errors: ERRORS.validateSession,
  });

  doc.add({
    method: 'get', path: '/api/v1/sessions/{sessionId}/free-rounds', operationId: 'listSessionFreeRounds', tag: 'Wallet',
    summary: "The session player's free-round awards",
    description: `The awards the game may offer now: those the casino gave the session's player for this game and the session's
currency that are \`ACTIVE\` or \`IN_PROGRESS\`, started and not expired, with rounds left; the one expiring first comes first.
Play each round at the award's \`betValue\`, and credit its outcome with \`FREEBET_WIN\` or \`FREEBET_LOST\` naming \`awardId\`
(and \`campaignId\`). The session is checked as for validation, the casino is not called, and nothing is recorded. When the
casino's free-rounds mode is \`managed\`, each new freebet credit is checked against its award (\`betAmount\` must equal
\`betValue\`) and consumes one round (the \`FREEBET_*\` codes of the cash-in); in \`passthrough\` (the default) it is relayed unchecked.`,
    path_: sessionPath,
    success: { status: 200, description: 'Message `Free-round awards fetched successfully`; an empty list when there are none.', schema: envelope(z.array(award)), example: { statusCode: 200, message: 'Free-round awards fetched successfully', data: [awardExample] } },
    errorStyle: 'envelope',
    errors: ERRORS.sessionAwards,
  });

  doc.add({
    method: 'get', path: '/api/account', operationId: 'getBalance', tag: 'Wallet',
    summary: "Read the player's balance",
    description: "Asks the casino wallet for the session player's balance. Nothing is recorded.",
    query: balanceQuery,
    parameterText: { sessionId: 'The player session.', currency: "When given, must equal the session's currency (case-insensitive)." },
    success: { status: 200, description: 'The account.', schema: res.account, example: ex.account },
    errorStyle: 'wallet',
    errors: ERRORS.balance,
  });

  doc.add({
    method: 'post', path: '/api/balance/cash-out', operationId: 'cashOut', tag: 'Wallet',
    summary: 'Take a bet (debit)',
    description: `Debits \`amount\` from the player at the casino and opens the round \`roundId\` holding \`game.gameData\`. The
transaction is written as PENDING before the casino is called; the answer is the account after the debit.
\`game\` is stored on the round, never sent to the casino. A refused debit (\`FUND_WITHDRAW_FAILED\`) opens
no round.`,
    body: { schema: cashOutBody, example: ex.cashOut },
    success: { status: 200, description: 'The account after the debit (or the stored answer of an earlier success with this `transactionId`).', schema: res.account, example: ex.account },
    errorStyle: 'wallet',
    errors: ERRORS.cashOut,
  });

  const cashInText = `Credits \`amount\` (the total paid, stake included when it is returned) and settles the bet. Every bet is
settled by exactly one credit, a loss too (\`BET_LOST\` with amount 0). \`reason\` is one of the cash-in reasons;
\`appliedMultiplier\` is the real multiplier for \`NORMAL_WIN\`, \`FREEBET_WIN\` and the \`DISCONNECT_*_WIN\` reasons
and 0 for every other; send \`previousTransactionId\` (the bet's) for every reason that settles a bet, and always
\`betAmount\`. A new \`transactionId\` for the credit. For a casino in managed free-rounds mode, a new freebet credit
(\`FREEBET_WIN\`, \`FREEBET_LOST\`, \`DISCONNECT_FREEBET_WIN\`) must name a playable award of the player for this game and
currency, with \`betAmount\` equal to its \`betValue\`, and consumes one of its rounds (\`isLastFreebet: true\` completes it);
a repeat of a \`transactionId\` already claimed is never refused for the award's state. A freebet's \`betAmount\` is no stake.`;

  doc.add({
    method: 'post', path: '/api/balance/cash-in', operationId: 'cashIn', tag: 'Wallet',
    summary: 'Settle a bet (credit)',
    description: cashInText,
    body: { schema: cashInBody, example: ex.cashIn },
    success: { status: 200, description: 'The account after the credit.', schema: res.account, example: { ...ex.account, balance: 102.25 } },
    errorStyle: 'wallet',
    errors: ERRORS.cashIn,
  });

  doc.add({
    method: 'post', path: '/api/balance/cash-in/retry', operationId: 'cashInRetry', tag: 'Wallet',
    summary: 'Repeat a failed credit, also after the session expired',
    description: `The body of the cash-in, unchanged (same \`transactionId\`). Unlike the plain cash-in, a session past its
day is still found in the archive (two months), so a credit owed reaches the player. The attempt is
recorded with \`isRetry\` true. The relay never repeats anything by itself: scheduling retries is the game's job.`,
    body: { schema: cashInBody, example: ex.cashIn },
    success: { status: 200, description: 'The account after the credit.', schema: res.account, example: { ...ex.account, balance: 102.25 } },
    errorStyle: 'wallet',
    errors: ERRORS.cashIn,
  });

  doc.add({
    method: 'post', path: '/api/round-ended', operationId: 'roundEnded', tag: 'Rounds',
    summary: 'Tell casinos that a round ended',
    description: `No money moves and no session is involved. Every casino id is checked before the first notification: an
unknown or inactive one fails the whole call and nobody is notified. Each distinct casino is notified once;
when one fails, the others are still notified and that casino's error is the answer.`,
    body: { schema: roundEndedBody, example: { roundId: 'r-20261121-000042', providerIds: ['demo-casino'] } },
    success: { status: 200, description: 'Every named casino was notified.', schema: res.roundEndedOk, example: { ok: true } },
    errorStyle: 'wallet',
    errors: ERRORS.roundEnded,
  });

  doc.add({
    method: 'get', path: '/api/v1/providers/ids', operationId: 'listCasinoIds', tag: 'Casinos',
    summary: 'List casino ids',
    description: 'Every casino, newest first; not paginated. `days` keeps those registered in the last N days.',
    query: casinoIdsQuery,
    success: {
      status: 200, description: 'Message `Provider ids fetched successfully`.', schema: envelope(z.array(res.casinoId)),
      example: { statusCode: 200, message: 'Provider ids fetched successfully', data: [{ providerId: 'demo-casino', createdAt: '2026-11-21T20:47:56.123Z' }] },
    },
    errorStyle: 'envelope',
    errors: ERRORS.list,
  });

  doc.add({
    method: 'get', path: '/api/v1/provider-catalog', operationId: 'getCatalog', tag: 'Casinos',
    summary: "Casinos' configuration of the caller's games",
    description: `The casinos that configured one of the caller's games, newest first, each with its games: the game settings
(template defaults with the casino's overrides) and the bet limits per currency. Not paginated. A \`gameId\` of
another game provider gives an empty list.`,
    query: catalogQuery,
    success: {
      status: 200, description: 'Message `Provider catalog fetched successfully`.', schema: envelope(z.array(res.catalogEntry)),
      example: { statusCode: 200, message: 'Provider catalog fetched successfully', data: ex.catalog },
    },
    errorStyle: 'envelope',
    errors: ERRORS.list,
  });

  doc.add({
    method: 'get', path: '/api/v1/rounds', operationId: 'listRounds', tag: 'Reporting',
    summary: 'List rounds',
    description: 'The caller\'s rounds, filtered and sorted, one page at a time. Open rounds of a past day are bets whose settlement never succeeded.',
    query: listRoundsQuery,
    parameterText: listText,
    success: {
      status: 200, description: 'Message `Rounds fetched successfully`.', schema: envelope(z.array(res.round), 'cursor'),
      example: { statusCode: 200, message: 'Rounds fetched successfully', data: [ex.round], meta: ex.page },
    },
    errorStyle: 'envelope',
    errors: ERRORS.list,
  });

  doc.add({
    method: 'get', path: '/api/v1/rounds/{providerId}/{roundId}', operationId: 'getRound', tag: 'Reporting',
    summary: 'One round with its transactions',
    description: 'Round ids are unique per casino, so the casino is part of the address.',
    path_: roundPath,
    success: { status: 200, description: 'Message `Round fetched successfully`.', schema: envelope(res.roundDetail), example: { statusCode: 200, message: 'Round fetched successfully', data: ex.roundDetail } },
    errorStyle: 'envelope',
    errors: ERRORS.roundDetail,
  });

  doc.add({
    method: 'get', path: '/api/v1/transactions', operationId: 'listTransactions', tag: 'Reporting',
    summary: 'List transactions',
    description: 'The caller\'s transactions, filtered and sorted, one page at a time. FAILED cash-ins are credits owed; PENDING ones older than a few minutes never got an answer and are resolved by repeating them with the same `transactionId`.',
    query: listTransactionsQuery,
    parameterText: listText,
    success: {
      status: 200, description: 'Message `Transactions fetched successfully`.', schema: envelope(z.array(res.transaction), 'cursor'),
      example: { statusCode: 200, message: 'Transactions fetched successfully', data: [ex.transaction], meta: ex.page },
    },
    errorStyle: 'envelope',
    errors: ERRORS.list,
  });

  doc.add({
    method: 'get', path: '/api/v1/transactions/{providerId}/{transactionId}', operationId: 'getTransaction', tag: 'Reporting',
    summary: 'One transaction',
    description: 'Transaction ids are unique per casino, so the casino is part of the address.',
    path_: transactionPath,
    success: { status: 200, description: 'Message `Transaction fetched successfully`.', schema: envelope(res.transaction), example: { statusCode: 200, message: 'Transaction fetched successfully', data: ex.transaction } },
    errorStyle: 'envelope',
    errors: ERRORS.transactionDetail,
  });

  return doc.toJSON();
}
