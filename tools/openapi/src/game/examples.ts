/** Worked examples of the game API: one player, one bet of 2.50 EUR won at 1.9x. */

export const SESSION_ID = '3f2a9c1e-5b7d-4e21-9a0f-6c8d2e4b1a77';
const created = '2026-11-21T20:47:56.123Z';

export const account = { id: 'player-1842', balance: 97.5, username: 'Lucky Lou' };

export const session = {
  valid: true,
  sessionId: SESSION_ID,
  gameId: 7001,
  gameName: 'Relay Dice',
  groupId: 'demo-studio',
  providerId: 'demo-casino',
  playerId: 'player-1842',
  currency: 'EUR',
  language: 'en',
  expiresAt: '2026-11-22T20:47:56.123Z',
};

export const cashOut = {
  sessionId: SESSION_ID,
  gameId: 7001,
  currency: 'EUR',
  roundId: 'r-20261121-000042',
  transactionId: 'bet-r-20261121-000042',
  amount: 2.5,
  game: { gameData: { target: 'over', threshold: 50 } },
};

export const cashIn = {
  sessionId: SESSION_ID,
  gameId: 7001,
  currency: 'EUR',
  roundId: 'r-20261121-000042',
  transactionId: 'win-r-20261121-000042',
  amount: 4.75,
  reason: 'NORMAL_WIN',
  appliedMultiplier: 1.9,
  previousTransactionId: 'bet-r-20261121-000042',
  betAmount: 2.5,
  game: { outcome: 'WIN', settlementData: { roll: 73 } },
};

const betRecord = {
  id: '10452',
  transactionId: 'bet-r-20261121-000042',
  category: 'CASH_OUT',
  status: 'SUCCESS',
  groupId: 'demo-studio',
  gameId: 7001,
  providerId: 'demo-casino',
  playerId: 'player-1842',
  sessionId: SESSION_ID,
  roundId: 'r-20261121-000042',
  amount: 2.5,
  currency: 'EUR',
  language: 'en',
  isRetry: false,
  balance: 97.5,
  completedAt: '2026-11-21T20:47:56.301Z',
  createdAt: created,
  updatedAt: '2026-11-21T20:47:56.301Z',
};

export const transaction = betRecord;

const winRecord = {
  ...betRecord,
  id: '10453',
  transactionId: 'win-r-20261121-000042',
  previousTransactionId: 'bet-r-20261121-000042',
  category: 'CASH_IN',
  amount: 4.75,
  reason: 'NORMAL_WIN',
  appliedMultiplier: 1.9,
  betAmount: 2.5,
  balance: 102.25,
};

export const round = {
  id: '8311',
  roundId: 'r-20261121-000042',
  gameId: 7001,
  groupId: 'demo-studio',
  providerId: 'demo-casino',
  playerId: 'player-1842',
  sessionId: SESSION_ID,
  currency: 'EUR',
  language: 'en',
  status: 'SETTLED',
  betAmount: 2.5,
  betTransactionId: 'bet-r-20261121-000042',
  payoutAmount: 4.75,
  appliedMultiplier: 1.9,
  settleTransactionId: 'win-r-20261121-000042',
  settleReason: 'NORMAL_WIN',
  outcome: 'WIN',
  gameData: { target: 'over', threshold: 50 },
  settlementData: { roll: 73 },
  openedAt: created,
  settledAt: '2026-11-21T20:47:58.010Z',
  createdAt: created,
  updatedAt: '2026-11-21T20:47:58.010Z',
};

export const roundDetail = { ...round, transactions: [betRecord, winRecord] };

export const currencyConfig = {
  id: '52',
  providerId: 'demo-casino',
  gameId: 7001,
  currency: 'EUR',
  minBet: 0.1,
  maxBet: 100,
  defaultBet: 1,
  betSuggestions: [0.5, 1, 2, 5],
  maxWin: 10000,
  isRoundable: false,
  isDefault: true,
  createdAt: created,
  updatedAt: created,
};

export const catalog = [
  {
    providerId: 'demo-casino',
    name: 'Demo Casino',
    createdAt: created,
    games: [
      {
        gameId: 7001,
        name: 'Relay Dice',
        status: 'ACTIVE',
        gameConfig: { values: { theme: 'dark', autoplay: true }, overrides: ['theme'] },
        currencyConfigs: [currencyConfig],
      },
    ],
  },
];

export const page = { total: 1, page: 1, limit: 20, totalPages: 1 };
