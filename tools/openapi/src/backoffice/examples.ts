/** Worked examples of the back office: the demo casino and studio, a support person and one dice round. */

const at = '2026-11-21T20:40:00.000Z';
const later = '2026-11-21T20:40:01.250Z';

export const account = {
  accountId: '6f1c2a9e-4b7d-4c1e-9a53-2d8e7f0b1c34',
  email: 'grace@demo-casino.example',
  displayName: 'Grace Support',
  role: 'support',
  scope: { type: 'casino', providerId: 'demo-casino' },
  status: 'ACTIVE',
  secondFactorEnrolled: true,
  createdAt: at,
  updatedAt: at,
};

export const accountBody = {
  email: 'grace@demo-casino.example',
  displayName: 'Grace Support',
  password: 'EXAMPLE-long-unusual-passphrase',
  role: 'support',
  scope: { type: 'casino', providerId: 'demo-casino' },
};

export const signInStep = { challenge: 'EXAMPLE-challenge-not-a-real-one', next: 'totp' };
export const signedIn = { account, csrfToken: 'EXAMPLE-csrf-token-not-a-real-one', expiresAt: '2026-11-22T08:40:00.000Z' };
export const whoAmI = { actorType: 'operator', role: 'support', scope: account.scope, account, idleTimeoutSeconds: 1800 };

export const casinoToken = {
  tokenId: '2b8d6c1e-0f4a-4e8b-9d2c-7a1e5f3b9c40',
  providerId: 'demo-casino',
  name: 'nightly reconciliation job',
  createdBy: 'ADMIN_TOKEN',
  createdAt: at,
  revokedAt: null,
};
export const issuedCasinoToken = { ...casinoToken, token: 'cat_EXAMPLE-token-not-a-real-one' };

export const auditEntry = {
  id: '42',
  occurredAt: at,
  actorType: 'operator',
  actorId: '0d4f7b2a-8c1e-4f5a-b3d9-6e2c1a7f8b90',
  actorLabel: 'ada@example.com',
  clientAddress: '203.0.113.7',
  method: 'POST',
  route: '/backoffice/v1/casinos/:providerId/api-tokens',
  requestId: 'c3f1a7e2-5b9d-4e0c-8a6f-1d2b3c4e5f60',
  action: 'casino-token.issue',
  target: 'casino-token/demo-casino/2b8d6c1e-0f4a-4e8b-9d2c-7a1e5f3b9c40',
  before: null,
  after: { tokenId: casinoToken.tokenId, name: casinoToken.name, tokenHash: '[REDACTED]' },
  prevHash: '9c1e0b7a4f2d8e6c3b5a7f9d1e2c4b6a8f0e1d3c5b7a9f2e4d6c8b0a1f3e5d7c',
  hash: '1f3e5d7c9b1a2f4e6d8c0b2a4f6e8d0c2b4a6f8e0d2c4b6a8f0e2d4c6b8a0f2e',
};
export const chainVerdict = { valid: true, rowsChecked: 42, brokenAt: null, head: { id: '42', hash: auditEntry.hash } };

export const casinoListed = { providerId: 'demo-casino', name: 'Demo Casino', status: 'ACTIVE', createdAt: at };
export const gameProviderListed = { groupId: 'demo-studio', name: 'Demo Studio', status: 'ACTIVE', createdAt: at };

const ids = { providerId: 'demo-casino', groupId: 'demo-studio', gameId: 7001, playerId: 'player-17', sessionId: 'b1f0c2d3-4e5f-4a6b-8c7d-9e0f1a2b3c4d', roundId: 'r-1001' };

export const transaction = {
  id: '9001',
  providerId: ids.providerId,
  transactionId: 'r-1001-bet',
  previousTransactionId: null,
  category: 'CASH_OUT',
  status: 'SUCCESS',
  groupId: ids.groupId,
  gameId: ids.gameId,
  playerId: ids.playerId,
  sessionId: ids.sessionId,
  roundId: ids.roundId,
  amount: 2.5,
  currency: 'EUR',
  reason: null,
  appliedMultiplier: null,
  betAmount: null,
  isRetry: false,
  balance: 97.5,
  errorCode: null,
  errorMessage: null,
  attempts: 1,
  completedAt: later,
  createdAt: at,
  updatedAt: later,
};

export const round = {
  id: '5001',
  providerId: ids.providerId,
  roundId: ids.roundId,
  groupId: ids.groupId,
  gameId: ids.gameId,
  playerId: ids.playerId,
  sessionId: ids.sessionId,
  currency: 'EUR',
  status: 'SETTLED',
  betAmount: 2.5,
  betTransactionId: 'r-1001-bet',
  payoutAmount: 4.75,
  appliedMultiplier: 1.9,
  settleTransactionId: 'r-1001-win',
  settleReason: 'NORMAL_WIN',
  outcome: 'WIN',
  openedAt: at,
  settledAt: later,
  createdAt: at,
  updatedAt: later,
};

export const attempt = {
  attempt: 1,
  startedAt: at,
  finishedAt: later,
  durationMs: 1250,
  outcome: 'SUCCESS',
  fromGame: { roundId: ids.roundId, transactionId: 'r-1001-bet', amount: 2.5 },
  sentToCasino: { providerId: ids.providerId, playerId: ids.playerId, walletToken: '[REDACTED]', sessionId: ids.sessionId, gameId: ids.gameId, currency: 'EUR', roundId: ids.roundId, transactionId: 'r-1001-bet', amount: 2.5 },
  casinoStatus: 200,
  casinoAnswer: '{"balance":97.5}',
  errorCodeToGame: null,
  errorMessage: null,
};

export const session = { sessionId: ids.sessionId, providerId: ids.providerId, groupId: ids.groupId, gameId: ids.gameId, playerId: ids.playerId, currency: 'EUR', language: 'en', username: null, createdAt: at, expiresAt: '2026-11-22T20:40:00.000Z' };
export const storyLink = '/backoffice/v1/money/rounds/demo-casino/r-1001/story';
export const roundStory = {
  round,
  transactions: [{ ...transaction, attemptLog: [attempt] }],
  session,
  roundEndedNotifications: [{ providerId: round.providerId, outcome: 'ok', errorMessage: null, requestId: '2b7e1f1c-6a3b-4d1e-9c55-0d2f3e4a5b6c', notifiedAt: '2026-11-23T10:15:04.120Z' }],
};
export const transactionDetail = { transaction: { ...transaction, attemptLog: [attempt] }, round, session, storyLink };

export const transactionsMeta = { nextCursor: 'eyJvIjoiZGVzYyJ9', totals: { count: 1, byCurrency: [{ currency: 'EUR', count: 1, amount: 2.5 }] } };
export const roundsMeta = { nextCursor: null, totals: { count: 1, byCurrency: [{ currency: 'EUR', count: 1, betAmount: 2.5, payoutAmount: 4.75 }] } };

export const item = {
  kind: 'CREDIT_OWED',
  providerId: ids.providerId,
  recordId: 'r-1002-win',
  groupId: ids.groupId,
  gameId: ids.gameId,
  playerId: ids.playerId,
  roundId: 'r-1002',
  transactionId: 'r-1002-win',
  category: 'CASH_IN',
  amount: 9.5,
  currency: 'EUR',
  errorCode: 'PROVIDER_API_FAILURE',
  since: at,
  ageSeconds: 5400,
  state: 'OPEN',
  note: null,
  decidedBy: null,
  decidedAt: null,
  suggestedAction: 'The casino owes the player 9.5 EUR: the game repeats the credit through the cash-in retry route with a new transactionId.',
  storyLink: '/backoffice/v1/money/rounds/demo-casino/r-1002/story',
};
export const itemAcknowledged = { ...item, state: 'ACKNOWLEDGED', note: 'Asked the studio to retry', decidedBy: account.accountId, decidedAt: later };
export const queueMeta = { total: 1, page: 1, limit: 100, counts: [{ kind: 'CREDIT_OWED', age: '1h_24h', count: 1 }] };

export const flaggedWin = {
  ...transaction,
  transactionId: 'r-1003-win',
  previousTransactionId: 'r-1003-bet',
  category: 'CASH_IN',
  roundId: 'r-1003',
  amount: 12500,
  reason: 'NORMAL_WIN',
  appliedMultiplier: 625,
  betAmount: 20,
  state: 'FLAGGED',
  flaggedFor: ['PAYOUT', 'MULTIPLIER'],
  payoutOver: 10000,
  multiplierOver: 500,
  reviewNote: null,
  reviewedBy: null,
  reviewedAt: null,
  storyLink: '/backoffice/v1/money/rounds/demo-casino/r-1003/story',
};
export const winReviewed = { ...flaggedWin, state: 'REVIEWED', reviewNote: 'Checked the game log: a fair win', reviewedBy: account.accountId, reviewedAt: later };
export const winsMeta = { total: 1, page: 1, limit: 100, from: '2026-10-22T20:40:00.000Z', to: null };
export const thresholdsBody = { multiplierOver: 500, payoutOver: { EUR: 10000, '*': 10000 } };
export const thresholds = { providerId: ids.providerId, isDefault: false, ...thresholdsBody };
export const casinoThresholds = [
  { ...thresholds, name: 'Demo Casino', status: 'ACTIVE', updatedBy: '3f2b8c1e-5d4a-4b7e-9c1f-2a3b4c5d6e7f', updatedAt: '2026-03-01T09:30:00.000Z' },
  { providerId: 'other-casino', isDefault: true, multiplierOver: 500, payoutOver: { '*': 10000 }, name: 'Other Casino', status: 'ACTIVE', updatedBy: null, updatedAt: null },
];

const sums = { bets: 120, betSum: 300, payoutSum: 262.5, ggr: 37.5, roundsSettled: 119, roundsOpen: 1, distinctPlayers: 14 };
export const reportRow = { day: '2026-11-21', providerId: ids.providerId, currency: 'EUR', ...sums };
export const reportMeta = { total: 1, page: 1, limit: 100, from: '2026-11-21', to: '2026-11-21', groupBy: ['day', 'providerId', 'currency'], totals: [{ currency: 'EUR', ...sums }] };

export const walletHealth = { providerId: ids.providerId, operation: 'debit', window: 'hour', attempts: 1200, ok: 1180, declined: 14, casinoErrors: 6, errorRate: 0.005, p50Ms: 42.5, p99Ms: 310.2 };
