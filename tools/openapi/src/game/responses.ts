import { z } from 'zod';
import { CASH_IN_REASONS } from '@relay/wallet';
import { money, timestamp } from '../schema';

/**
 * What the game routes answer. The services build these objects field by field (the reporting
 * repositories and the wallet domain); the contract tests (test/api) hold every answer the platform
 * gives against these schemas, so a field added or renamed there fails until it is described here.
 */

export const account = z
  .strictObject({
    id: z.string().meta({ description: "The casino's player id; equals `playerId` of the session." }),
    balance: money.meta({ description: 'Balance after the operation, in the session currency, rounded half-up to two decimals whatever the casino returned.' }),
    username: z.string().meta({ description: 'Display name from the casino; the player id when the casino has none.' }),
  })
  .meta({ id: 'Account' });

export const session = z
  .strictObject({
    valid: z.literal(true),
    sessionId: z.string(),
    gameId: z.number().int(),
    gameName: z.string(),
    groupId: z.string().meta({ description: 'The game provider.' }),
    providerId: z.string().meta({ description: 'The casino.' }),
    playerId: z.string(),
    currency: z.string(),
    language: z.string(),
    expiresAt: timestamp.meta({ description: 'One day after launch; never extended.' }),
  })
  .meta({ id: 'Session' });

const reason = z.enum(CASH_IN_REASONS);

export const transaction = z
  .strictObject({
    id: z.string().meta({ description: 'Internal record id.' }),
    transactionId: z.string().meta({ description: 'The idempotency key the game chose, unique per casino.' }),
    previousTransactionId: z.string().optional(),
    category: z.enum(['CASH_OUT', 'CASH_IN']),
    status: z.enum(['PENDING', 'SUCCESS', 'FAILED']),
    groupId: z.string(),
    gameId: z.number().int(),
    providerId: z.string(),
    playerId: z.string(),
    sessionId: z.string(),
    roundId: z.string(),
    amount: money,
    currency: z.string(),
    language: z.string(),
    reason: reason.optional(),
    appliedMultiplier: z.number().optional(),
    betAmount: money.optional(),
    isRetry: z.boolean().meta({ description: 'True when this attempt came through the cash-in retry route.' }),
    balance: money.optional().meta({ description: 'On SUCCESS: the balance the relay answered (already rounded); a replay answers it again.' }),
    errorCode: z.string().optional().meta({ description: 'On FAILED: the relay error code the game received.' }),
    errorMessage: z.string().optional(),
    completedAt: timestamp.optional().meta({ description: 'When the casino answered; absent while PENDING.' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Transaction', description: 'One cash-out or cash-in attempt with a distinct transactionId. Fields without a value are absent.' });

const roundFields = {
  id: z.string(),
  roundId: z.string(),
  gameId: z.number().int(),
  groupId: z.string(),
  providerId: z.string(),
  playerId: z.string(),
  sessionId: z.string(),
  currency: z.string(),
  language: z.string(),
  status: z.enum(['OPEN', 'SETTLED']),
  betAmount: money,
  betTransactionId: z.string(),
  payoutAmount: money.optional(),
  appliedMultiplier: z.number().optional(),
  settleTransactionId: z.string().optional(),
  settleReason: reason.optional(),
  outcome: z.string().optional(),
  gameData: z.record(z.string(), z.unknown()).optional().meta({ description: '`game.gameData` of the cash-out, as submitted.' }),
  settlementData: z.record(z.string(), z.unknown()).optional().meta({ description: '`game.settlementData` of the settling cash-in, as submitted.' }),
  openedAt: timestamp,
  settledAt: timestamp.optional(),
  createdAt: timestamp,
  updatedAt: timestamp,
};

export const round = z
  .strictObject(roundFields)
  .meta({ id: 'Round', description: 'One bet: opened by a successful cash-out, settled by a cash-in. Fields without a value are absent.' });

export const roundDetail = z
  .strictObject({ ...roundFields, transactions: z.array(transaction).meta({ description: "The round's cash-out and cash-in records." }) })
  .meta({ id: 'RoundDetail' });

export const casinoId = z.strictObject({ providerId: z.string(), createdAt: timestamp }).meta({ id: 'CasinoId' });

export const currencyConfig = z
  .strictObject({
    id: z.string(),
    providerId: z.string(),
    gameId: z.number().int(),
    currency: z.string(),
    minBet: money,
    maxBet: money,
    defaultBet: money,
    betSuggestions: z.array(money),
    maxWin: money.meta({ description: 'Cap on a single payout; the game caps the credit amount.' }),
    minAutoCashout: z.number().optional(),
    maxAutoCashout: z.number().optional(),
    defaultAutoCashout: z.number().optional(),
    isRoundable: z.boolean(),
    isDefault: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'CurrencyConfig', description: 'Bet limits of one casino for one game in one currency; the game enforces them before a cash-out.' });

export const catalogEntry = z
  .strictObject({
    providerId: z.string(),
    name: z.string(),
    createdAt: timestamp,
    games: z.array(
      z.strictObject({
        gameId: z.number().int(),
        name: z.string(),
        status: z.string(),
        gameConfig: z
          .strictObject({
            values: z.record(z.string(), z.unknown()).meta({ description: "Always complete: the template's defaults with the casino's overrides applied." }),
            overrides: z.array(z.string()).meta({ description: 'The properties the casino set itself.' }),
          })
          .nullable()
          .meta({ description: 'null when the game has no configuration template.' }),
        currencyConfigs: z.array(currencyConfig),
      }),
    ),
  })
  .meta({ id: 'CatalogEntry' });

export const roundEndedOk = z.strictObject({ ok: z.literal(true) });
