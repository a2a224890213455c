import type { ErrorTable } from '../errors';

/** The error answers of the game routes, route family by route family (spec, Errors). */

const auth = {
  403: { codes: ['AUTHENTICATION_FAILED', 'GROUP_NOT_ACTIVE'], description: 'The game provider token is missing, unknown or revoked, or the game provider is inactive.' },
  429: {
    codes: ['RATE_LIMITED'],
    description: 'The game provider exceeded its request rate, or already holds its whole share of the relay\'s connections to the service (requests in flight), or its address failed authentication too often; wait `Retry-After` seconds.',
  },
  500: { codes: ['INTERNAL_ERROR'], description: 'An unexpected failure of the relay (never with details). Repeat the identical request; a money call with the same `transactionId`.' },
  503: { codes: ['SERVICE_UNAVAILABLE'], description: 'A part of the relay is briefly unavailable or at capacity; nothing was done. Repeat the identical request (same `transactionId`) after `Retry-After`.' },
} satisfies ErrorTable;

/** A body must arrive whole within the gateway's body time-out (GATEWAY_BODY_TIMEOUT_MS). */
const slowBody = 'or the request body did not arrive within the gateway\'s body time-out (`REQUEST_TIMEOUT`: nothing was done; send it again)';

const casino = {
  408: { codes: ['INTEGRATION_TIMED_OUT'], description: 'The casino did not answer within the casino time-out (10 s); a money movement may or may not have happened there. Repeat with the same `transactionId`.' },
  502: { codes: ['PROVIDER_API_FAILURE', 'INVALID_PROVIDER_RESPONSE'], description: 'The casino refused or failed the call, answered outside the protocol, or could not be reached.' },
} satisfies ErrorTable;

const sessionScoped = {
  ...auth,
  ...casino,
  400: { codes: ['Bad Request', 'SESSION_GAME_MISMATCH', 'SESSION_CURRENCY_MISMATCH'], description: 'The request is not valid (the casino was not called), or it names another game or currency than the session.' },
  403: {
    codes: ['AUTHENTICATION_FAILED', 'GROUP_NOT_ACTIVE', 'SESSION_EXPIRED', 'GAME_NOT_OWNED_BY_GROUP', 'GAME_NOT_ACTIVE', 'PROVIDER_NOT_ACTIVE', 'AUTHENTICATION_TOKEN_EXPIRED'],
    description: 'Token refused, session unknown or expired, game of another provider or disabled, casino disabled, or the casino no longer accepts the player (the player relaunches).',
  },
  404: { codes: ['GAME_NOT_FOUND', 'PROVIDER_NOT_FOUND'], description: 'The game or the casino of the session has been removed.' },
} satisfies ErrorTable;

const money = {
  ...sessionScoped,
  408: { codes: ['INTEGRATION_TIMED_OUT', 'REQUEST_TIMEOUT'], description: `${casino[408].description} Or ${slowBody}.` },
  409: { codes: ['TRANSACTION_IN_FLIGHT'], description: 'An earlier attempt with this `transactionId` is still running (younger than the in-flight window). Repeat the identical request after `Retry-After`.' },
  413: { codes: ['PAYLOAD_TOO_LARGE'], description: 'The body is larger than 64 KiB.' },
} satisfies ErrorTable;

export const ERRORS = {
  validateSession: sessionScoped,
  balance: sessionScoped,
  sessionAwards: {
    ...auth,
    400: { codes: ['Bad Request'], description: 'The request is not valid.' },
    403: { codes: ['AUTHENTICATION_FAILED', 'GROUP_NOT_ACTIVE', 'SESSION_EXPIRED', 'GAME_NOT_OWNED_BY_GROUP', 'GAME_NOT_ACTIVE', 'PROVIDER_NOT_ACTIVE'], description: 'Token refused, session unknown or expired, game of another provider or disabled, or casino disabled.' },
    404: sessionScoped[404],
  },
  cashOut: {
    ...money,
    400: { codes: [...sessionScoped[400].codes, 'FUND_WITHDRAW_FAILED'], description: `${sessionScoped[400].description} \`FUND_WITHDRAW_FAILED\`: the casino refused the debit (normally insufficient funds); no round was opened.` },
    500: { codes: ['CASHOUT_FAILED', 'INTERNAL_ERROR'], description: '`CASHOUT_FAILED`: the casino failed the debit with a server error; the bet is rejected (refund with reason `CASHOUT_FAILED` where the casino asks for it). `INTERNAL_ERROR`: an unexpected failure of the relay; repeat with the same `transactionId`.' },
  },
  cashIn: {
    ...money,
    400: {
      codes: [...sessionScoped[400].codes, 'FREEBET_AWARD_NOT_FOUND', 'FREEBET_AWARD_NOT_FOR_GAME', 'FREEBET_AWARD_NO_ROUNDS_LEFT', 'FREEBET_AWARD_NOT_ACTIVE', 'FREEBET_BET_MISMATCH'],
      description: `${sessionScoped[400].description} The \`FREEBET_*\` codes, only for a casino in managed free-rounds mode and only for a \`transactionId\` not claimed before: the freebet credit names no award of this casino and player (\`FREEBET_AWARD_NOT_FOUND\`), one not valid for the session's game or currency (\`FREEBET_AWARD_NOT_FOR_GAME\`), one with every round played (\`FREEBET_AWARD_NO_ROUNDS_LEFT\`), one not started, expired, cancelled or completed (\`FREEBET_AWARD_NOT_ACTIVE\`), or a \`betAmount\` other than the award's bet value (\`FREEBET_BET_MISMATCH\`). The casino was not called and nothing was recorded.`,
    },
  },
  roundEnded: {
    ...auth,
    400: { codes: ['Bad Request'], description: 'The body is not valid; nobody was notified.' },
    403: {
      codes: ['AUTHENTICATION_FAILED', 'GROUP_NOT_ACTIVE', 'PROVIDER_NOT_ACTIVE', 'AUTHENTICATION_TOKEN_EXPIRED'],
      description: 'Token refused, a named casino is inactive (nobody was notified), or a casino rejected the notification (the others were notified).',
    },
    404: { codes: ['PROVIDER_NOT_FOUND'], description: 'A named casino does not exist; nobody was notified.' },
    408: money[408],
    413: { codes: ['PAYLOAD_TOO_LARGE'], description: 'The body is larger than 64 KiB.' },
    502: { codes: ['PROVIDER_API_FAILURE'], description: 'A casino failed the notification; the others were still notified.' },
  },
  list: {
    ...auth,
    400: { codes: ['Bad Request'], description: 'A query parameter is unknown, repeated or outside its rules; `details` names it.' },
  },
  roundDetail: { ...auth, 404: { codes: ['ROUND_NOT_FOUND'], description: 'No such round of this casino for the calling game provider.' } },
  transactionDetail: { ...auth, 404: { codes: ['TRANSACTION_NOT_FOUND'], description: 'No such transaction of this casino for the calling game provider.' } },
  launch: {
    400: { codes: ['Bad Request'], description: 'A launch parameter is missing or malformed.' },
    401: { codes: ['INVALID_LAUNCH_TOKEN'], description: 'The casino token does not decrypt, its claims are wrong or expired, its `providerId` differs, or its `jti` was used before.' },
    403: { codes: ['PROVIDER_NOT_ACTIVE', 'GAME_NOT_ACTIVE'], description: 'The casino or the game is disabled.' },
    404: { codes: ['PROVIDER_NOT_FOUND', 'GAME_NOT_FOUND'], description: 'The casino or the game is not registered.' },
    429: { codes: ['RATE_LIMITED'], description: 'This client address already holds its whole share of the launcher\'s connections; wait `Retry-After` seconds.' },
    500: auth[500],
    503: auth[503],
  },
} satisfies Record<string, ErrorTable>;
