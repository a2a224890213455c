import { z } from 'zod';
import { ITEM_KINDS } from '@relay/backoffice';
import { money, timestamp } from '../schema';

/**
 * What the money views answer (services/backoffice/src/data/ledger.ts and the domain's present
 * functions list each field by hand), held against every answer in the contract tests.
 */
const nullableMoney = money.nullable();

export const transaction = z
  .strictObject({
    id: z.string(),
    providerId: z.string(),
    transactionId: z.string(),
    previousTransactionId: z.string().nullable(),
    category: z.enum(['CASH_OUT', 'CASH_IN']),
    status: z.enum(['PENDING', 'SUCCESS', 'FAILED']),
    groupId: z.string(),
    gameId: z.number().int(),
    playerId: z.string(),
    sessionId: z.string(),
    roundId: z.string(),
    amount: money,
    currency: z.string(),
    reason: z.string().nullable(),
    appliedMultiplier: z.number().nullable(),
    betAmount: nullableMoney,
    isRetry: z.boolean(),
    balance: nullableMoney.meta({ description: "The player's balance the casino answered, when it did." }),
    errorCode: z.string().nullable(),
    errorMessage: z.string().nullable(),
    attempts: z.number().int(),
    completedAt: timestamp.nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'LedgerTransaction' });

export const round = z
  .strictObject({
    id: z.string(),
    providerId: z.string(),
    roundId: z.string(),
    groupId: z.string(),
    gameId: z.number().int(),
    playerId: z.string(),
    sessionId: z.string(),
    currency: z.string(),
    status: z.enum(['OPEN', 'SETTLED']),
    betAmount: money,
    betTransactionId: z.string(),
    payoutAmount: nullableMoney,
    appliedMultiplier: z.number().nullable(),
    settleTransactionId: z.string().nullable(),
    settleReason: z.string().nullable(),
    outcome: z.string().nullable(),
    openedAt: timestamp,
    settledAt: timestamp.nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'LedgerRound' });

const totalsOf = (sums: Record<string, z.ZodType>) =>
  z.strictObject({
    count: z.number().int().meta({ description: 'Every record the filters match, not only this page.' }),
    byCurrency: z.array(z.strictObject({ currency: z.string(), count: z.number().int(), ...sums })),
  });

export const searchMeta = (sums: Record<string, z.ZodType>) =>
  z.strictObject({
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` (with the same filters, `sortBy` and `sortOrder`) for the next page; null on the last page.' }),
    totals: totalsOf(sums),
  });
export const transactionTotals = { amount: money };
export const roundTotals = { betAmount: money, payoutAmount: money };

export const attempt = z
  .strictObject({
    attempt: z.number().int(),
    startedAt: timestamp,
    finishedAt: timestamp.nullable(),
    durationMs: z.number().int().nullable(),
    outcome: z.string(),
    fromGame: z.record(z.string(), z.unknown()).meta({ description: 'The money fields the game sent.' }),
    sentToCasino: z.record(z.string(), z.unknown()).meta({ description: 'What the relay sent the casino, the wallet token shown as `[REDACTED]`.' }),
    casinoStatus: z.number().int().nullable(),
    casinoAnswer: z.string().nullable(),
    errorCodeToGame: z.string().nullable(),
    errorMessage: z.string().nullable(),
  })
  .meta({ id: 'CasinoAttempt' });

export const transactionWithAttempts = z.strictObject({ ...transaction.shape, attemptLog: z.array(attempt) }).meta({ id: 'LedgerTransactionStory' });

export const storySession = z
  .strictObject({
    sessionId: z.string(),
    providerId: z.string(),
    groupId: z.string(),
    gameId: z.number().int(),
    playerId: z.string(),
    currency: z.string(),
    language: z.string().nullable(),
    username: z.string().nullable(),
    createdAt: timestamp.nullable(),
    expiresAt: timestamp.nullable(),
  })
  .meta({ id: 'StorySession', description: 'The session the money moved in; never its wallet token.' });

export const roundStory = z
  .strictObject({
    round,
    transactions: z.array(transactionWithAttempts),
    session: storySession.nullable(),
    roundEndedNotifications: z
      .array(
        z.object({
          providerId: z.string(),
          outcome: z.string().meta({ description: '`ok`, or the relay code the game was answered for this casino (e.g. `PROVIDER_API_FAILURE`, `INTEGRATION_TIMED_OUT`).' }),
          errorMessage: z.string().nullable(),
          requestId: z.string().nullable().meta({ description: 'The round-ended call that sent it.' }),
          notifiedAt: z.string().meta({ description: 'UTC, ISO 8601.' }),
        }),
      )
      .meta({ description: 'Each round-ended call the game made for this round, and what the casino answered, oldest first (every repeat is a row).' }),
  })
  .meta({ id: 'RoundStory' });

export const transactionDetail = z
  .strictObject({ transaction: transactionWithAttempts, round: round.nullable(), session: storySession.nullable(), storyLink: z.string() })
  .meta({ id: 'TransactionDetail' });

const kind = z.enum(ITEM_KINDS);
export const reconciliationItem = z
  .strictObject({
    kind,
    providerId: z.string(),
    recordId: z.string(),
    groupId: z.string(),
    gameId: z.number().int(),
    playerId: z.string(),
    roundId: z.string(),
    transactionId: z.string(),
    category: z.string(),
    amount: money,
    currency: z.string(),
    errorCode: z.string().nullable(),
    since: timestamp,
    ageSeconds: z.number().int(),
    state: z.enum(['OPEN', 'ACKNOWLEDGED', 'RESOLVED']),
    note: z.string().nullable(),
    decidedBy: z.string().nullable(),
    decidedAt: timestamp.nullable(),
    suggestedAction: z.string().meta({ description: "What the spec's handling rules suggest; the platform itself never moves money for an item." }),
    storyLink: z.string(),
  })
  .meta({ id: 'ReconciliationItem' });

export const closedItem = z
  .strictObject({
    kind,
    providerId: z.string(),
    recordId: z.string(),
    state: z.literal('CLOSED_BY_LEDGER'),
    recordStatus: z.string(),
    note: z.string().nullable(),
    decidedBy: z.string().nullable(),
    storyLink: z.string(),
  })
  .meta({ id: 'ReconciliationItemClosed', description: 'The ledger resolved it (the credit was repeated, the round settled): it no longer needs anyone.' });

export const queueMeta = z.strictObject({
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  counts: z.array(z.strictObject({ kind, age: z.enum(['lt_1h', '1h_24h', 'gt_24h']), count: z.number().int() })).meta({ description: 'Open items by kind and age, for the filters given.' }),
});

export const flaggedWin = z
  .strictObject({
    ...transaction.shape,
    state: z.enum(['FLAGGED', 'REVIEWED']),
    flaggedFor: z.array(z.enum(['PAYOUT', 'MULTIPLIER'])),
    payoutOver: money,
    multiplierOver: z.number(),
    reviewNote: z.string().nullable(),
    reviewedBy: z.string().nullable(),
    reviewedAt: timestamp.nullable(),
    storyLink: z.string(),
  })
  .meta({ id: 'FlaggedWin' });

export const winsMeta = z.strictObject({
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  from: timestamp.nullable(),
  to: timestamp.nullable(),
});

export const thresholds = z
  .strictObject({
    providerId: z.string(),
    isDefault: z.boolean().meta({ description: 'True while the casino has no thresholds of its own (the platform defaults apply).' }),
    multiplierOver: z.number(),
    payoutOver: z.record(z.string(), money).meta({ description: 'Per currency; `*` for every other currency.' }),
  })
  .meta({ id: 'FlagThresholds' });

export const casinoThresholds = z
  .strictObject({
    ...thresholds.shape,
    name: z.string(),
    status: z.string().meta({ description: "The casino's status." }),
    updatedBy: z.string().nullable().meta({ description: 'The account (or `ADMIN_TOKEN`) that last set them; null while the defaults apply.' }),
    updatedAt: timestamp.nullable(),
  })
  .meta({ id: 'CasinoFlagThresholds' });

const metrics = {
  bets: z.number().int(),
  betSum: money,
  payoutSum: money,
  ggr: money.meta({ description: 'Bets minus payouts, exact to the cent.' }),
  roundsSettled: z.number().int(),
  roundsOpen: z.number().int(),
  distinctPlayers: z.number().int(),
};

export const reportRow = z
  .strictObject({
    day: z.string().optional(),
    providerId: z.string().optional(),
    groupId: z.string().optional(),
    gameId: z.number().int().optional(),
    currency: z.string(),
    ...metrics,
  })
  .meta({ id: 'ReportRow', description: 'One group: the dimensions asked for in `groupBy` (currency always), then the sums.' });

export const reportMeta = z.strictObject({
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  from: z.string(),
  to: z.string(),
  groupBy: z.array(z.string()),
  totals: z.array(reportRow).meta({ description: 'Per currency, over the whole period and filters.' }),
});

export const walletHealth = z
  .strictObject({
    providerId: z.string(),
    operation: z.enum(['debit', 'credit']),
    window: z.enum(['hour', 'day']).meta({ description: 'Attempts started in the last hour, or the last day.' }),
    attempts: z.number().int().meta({ description: 'Finished debit or credit attempts (running ones are not counted).' }),
    ok: z.number().int().meta({ description: 'The casino accepted.' }),
    declined: z.number().int().meta({ description: 'The casino refused with a 4xx (insufficient funds, limits): a business answer, not an error.' }),
    casinoErrors: z.number().int().meta({ description: 'The casino failed: 5xx, time-out, no connection, an answer the relay could not use.' }),
    errorRate: z.number().meta({ description: 'casinoErrors / attempts, from 0 to 1.' }),
    p50Ms: z.number().nullable().meta({ description: 'Median time from the call to the answer (or the time-out), ms.' }),
    p99Ms: z.number().nullable().meta({ description: '99th percentile of the same, ms.' }),
  })
  .meta({ id: 'WalletHealth', description: 'One casino, one operation, one window.' });
