import { z } from 'zod';
import { ITEM_KINDS } from '@relay/backoffice';
import { money, timestamp } from '../schema';

/**
 * What the back-office routes answer (services/backoffice/src/routes/present*.ts and the domain's
 * present functions list each field by hand). The contract tests hold every answer against these,
 * so a field added there without a line here fails the test that received it.
 */
const nullableMoney = money.nullable();
const role = z.enum(['admin', 'support', 'finance']);

export const operatorScope = z
  .union([
    z.strictObject({ type: z.literal('platform') }),
    z.strictObject({ type: z.literal('casino'), providerId: z.string() }),
    z.strictObject({ type: z.literal('studio'), groupId: z.string() }),
  ])
  .meta({ id: 'OperatorScope', description: 'Whose records the account sees: the whole platform, one casino (`providerId`) or one game provider (`groupId`).' });

export const account = z
  .strictObject({
    accountId: z.string(),
    email: z.string(),
    displayName: z.string(),
    role,
    scope: operatorScope,
    status: z.enum(['ACTIVE', 'DISABLED']),
    secondFactorEnrolled: z.boolean().meta({ description: 'False until the person confirms an authenticator app at sign-in (again after a reset).' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'OperatorAccount', description: 'Never carries the password hash, the TOTP secret or recovery codes.' });

export const signInStep = z
  .union([
    z.strictObject({ challenge: z.string(), next: z.literal('totp') }),
    z.strictObject({
      challenge: z.string(),
      next: z.literal('enrol'),
      enrolment: z
        .strictObject({
          secret: z.string().meta({ description: 'The TOTP secret (base32), shown only in this answer.' }),
          otpauthUri: z.string(),
          qrCodeSvg: z.string(),
          qrCodeDataUrl: z.string(),
        })
        .meta({ description: 'First sign-in (or after a reset): scan the QR code, then send its first code.' }),
    }),
  ])
  .meta({ id: 'SignInStep', description: '`challenge` goes with the code to `/auth/second-factor`; it is good for one use, briefly.' });

export const signedIn = z
  .strictObject({
    account,
    csrfToken: z.string().meta({ description: 'Echo it in `X-CSRF-Token` on every state-changing request (also in the `relay_bo_csrf` cookie).' }),
    expiresAt: timestamp.meta({ description: 'The absolute end of the session; it also ends after the idle time-out.' }),
    recoveryCodes: z.array(z.string()).optional().meta({ description: 'Only at enrolment: ten single-use codes, shown once.' }),
  })
  .meta({ id: 'SignedIn' });

export const whoAmI = z
  .strictObject({
    actorType: z.enum(['admin-token', 'operator', 'casino-token']),
    role,
    scope: operatorScope,
    account: account.nullable().meta({ description: 'The signed-in person; null for a token.' }),
    idleTimeoutSeconds: z.number().int(),
  })
  .meta({ id: 'BackofficeCaller' });

export const casinoToken = z
  .strictObject({ tokenId: z.string(), providerId: z.string(), name: z.string(), createdBy: z.string(), createdAt: timestamp, revokedAt: timestamp.nullable() })
  .meta({ id: 'CasinoApiToken' });

export const issuedCasinoToken = z
  .strictObject({
    ...casinoToken.shape,
    token: z.string().meta({ description: 'The bearer token (`cat_...`). Shown only in this answer; stored only as a hash.' }),
  })
  .meta({ id: 'IssuedCasinoApiToken' });

export const auditEntry = z
  .strictObject({
    id: z.string(),
    occurredAt: timestamp,
    actorType: z.enum(['admin-token', 'operator', 'casino-token', 'system']),
    actorId: z.string(),
    actorLabel: z.string().nullable(),
    clientAddress: z.string().nullable(),
    method: z.string(),
    route: z.string(),
    requestId: z.string().nullable(),
    action: z.string(),
    target: z.string().nullable(),
    before: z.unknown().meta({ description: 'The record before the change, secrets replaced by `[REDACTED]`; null for a creation.' }),
    after: z.unknown().meta({ description: 'The record after the change, secrets replaced.' }),
    prevHash: z.string(),
    hash: z.string().meta({ description: 'SHA-256 over the previous hash and this entry: an edited or deleted entry breaks the chain.' }),
  })
  .meta({ id: 'AuditEntry' });

export const chainVerdict = z
  .strictObject({
    valid: z.boolean(),
    rowsChecked: z.number().int(),
    brokenAt: z.strictObject({ id: z.string(), reason: z.enum(['edited', 'link']) }).nullable(),
    head: z.strictObject({ id: z.string(), hash: z.string() }).nullable().meta({ description: 'The last entry checked: keep it elsewhere to notice entries cut off the end.' }),
  })
  .meta({ id: 'AuditChainVerdict' });

const directoryStatus = z.string().meta({ description: '`ACTIVE` or `INACTIVE`.' });
export const casinoListed = z.strictObject({ providerId: z.string(), name: z.string(), status: directoryStatus, createdAt: timestamp }).meta({ id: 'CasinoListed' });
export const gameProviderListed = z.strictObject({ groupId: z.string(), name: z.string(), status: directoryStatus, createdAt: timestamp }).meta({ id: 'GameProviderListed' });

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
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` (with the same filters and `sortOrder`) for the next page; null on the last page.' }),
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
    roundEndedNotifications: z.null().meta({ description: 'Not recorded yet: always null.' }),
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
