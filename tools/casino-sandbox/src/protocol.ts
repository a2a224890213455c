import { z } from 'zod';

/**
 * What the sandbox accepts on its wallet endpoints: the request bodies of docs/api/casino.json, checked
 * strictly so a relay that drops or mistypes a field is caught here rather than at a real casino.
 * The walletToken is not checked here: a missing or wrong token is the casino's TOKEN_EXPIRED.
 */
const id = z.string().min(1);
const amount = z.number().finite().nonnegative();

const balanceBody = z.object({
  providerId: id,
  playerId: id,
  walletToken: z.unknown(),
  sessionId: id,
  gameId: z.number().int(),
  currency: id,
});

const debitBody = balanceBody.extend({ roundId: id, transactionId: id, amount });

const creditBody = debitBody.extend({
  reason: id,
  appliedMultiplier: z.number().finite().nonnegative(),
  betAmount: amount,
  previousTransactionId: id.optional(),
  awardId: id.optional(),
  campaignId: id.optional(),
  isLastFreebet: z.boolean().optional(),
  isRetry: z.boolean(),
});

const roundEndedBody = z.object({ providerId: id, groupId: id, roundId: id });

export const requestSchemas = { balance: balanceBody, debit: debitBody, credit: creditBody, 'round-ended': roundEndedBody } as const;

/** First problem of a body, as "field: reason", or null when it follows the contract. */
export function bodyProblem(operation: keyof typeof requestSchemas, body: unknown): string | null {
  const parsed = requestSchemas[operation].safeParse(body);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  return `${issue.path.join('.') || 'body'}: ${issue.message}`;
}
