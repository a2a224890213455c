import { z } from 'zod';
import { badRequest, isValidAmount } from '@relay/shared';
import { CASH_IN_REASONS } from '../domain/cash-in-reasons';

/** Game-generated identifiers: unique per casino, never containing ':' (spec Limits). */
// A pattern rather than a refinement, so the published API reference (docs/api) states the rule.
const identifier = z.string().min(1).max(200).regex(/^[^:]*$/, "must not contain ':'");
const text = (max: number) => z.string().min(1).max(max);
const amount = z
  .number()
  .refine(isValidAmount, 'must be a non-negative number with at most 2 decimals')
  .meta({ description: 'A JSON number, non-negative, with at most 2 decimals (10.005 is refused, never rounded), below 10^13.', minimum: 0, exclusiveMaximum: 1e13 });
// Depth and NUL are refused for every request by the shared input guard (refuseUnsafeInput).
const jsonObject = z.record(z.string(), z.unknown());
const gameId = z.number().int().min(1).max(2147483647);

const moneyFields = {
  sessionId: text(200),
  gameId,
  currency: text(16),
  roundId: identifier,
  transactionId: identifier,
  amount,
  language: text(35).optional(),
};

export const cashOutBody = z.object({
  ...moneyFields,
  game: z.object({ gameData: jsonObject.optional(), meta: jsonObject.optional() }).optional(),
});

export const cashInBody = z.object({
  ...moneyFields,
  reason: z.enum(CASH_IN_REASONS),
  appliedMultiplier: z.number().min(0).max(1e12),
  previousTransactionId: identifier.optional(),
  betAmount: amount.optional(),
  awardId: text(200).optional(),
  campaignId: text(200).optional(),
  isLastFreebet: z.boolean().optional(),
  game: z.object({ outcome: text(200).optional(), settlementData: jsonObject.optional(), meta: jsonObject.optional() }).optional(),
});

export const balanceQuery = z.object({ sessionId: text(200), currency: text(16).optional() });

export const validateSessionQuery = z.object({
  gameId: z.string().regex(/^\d{1,10}$/).transform(Number).pipe(gameId),
  currency: text(16).optional(),
});

/** Parses or throws the platform's 400 with the failing fields named. */
export function parse<T extends z.ZodTypeAny>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input ?? {});
  if (!result.success) {
    throw badRequest('Request validation failed', result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
  }
  return result.data;
}
