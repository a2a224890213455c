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

// The descriptions are published in the API reference (docs/api/game.json).
const moneyFields = {
  sessionId: text(200).meta({ description: 'The session the launch opened.' }),
  gameId: gameId.meta({ description: "Must be the session's game." }),
  currency: text(16).meta({ description: "Must be the session's currency (compared case-insensitively)." }),
  roundId: identifier.meta({ description: 'Your round id: unique per casino.' }),
  transactionId: identifier.meta({ description: 'The idempotency key of this movement, unique per casino: a fresh one per movement, the same one when repeating it.' }),
  amount,
  language: text(35).optional().meta({ description: 'Overrides the session language for this call.' }),
};

export const cashOutBody = z.object({
  ...moneyFields,
  game: z
    .object({ gameData: jsonObject.optional(), meta: jsonObject.optional() })
    .optional()
    .meta({ description: 'Stored on the round as submitted; never sent to the casino, never interpreted.' }),
});

export const cashInBody = z.object({
  ...moneyFields,
  reason: z.enum(CASH_IN_REASONS).meta({ description: 'Why the player is credited; any other value is refused and the casino is not called.' }),
  appliedMultiplier: z
    .number()
    .min(0)
    .max(1e12)
    .meta({ description: 'The real multiplier for NORMAL_WIN, FREEBET_WIN and the DISCONNECT_*_WIN reasons; 0 for every other reason. Required.' }),
  previousTransactionId: identifier.optional().meta({ description: "The bet's transactionId; send it for every reason that settles a bet." }),
  betAmount: amount.optional().meta({ description: 'The original stake, at most 2 decimals; 0 when absent. Always send it.' }),
  awardId: text(200).optional().meta({ description: 'The freebet, with FREEBET_WIN and FREEBET_LOST.' }),
  campaignId: text(200).optional().meta({ description: 'The freebet campaign.' }),
  isLastFreebet: z.boolean().optional().meta({ description: "True when this was the player's last freebet." }),
  game: z
    .object({ outcome: text(200).optional(), settlementData: jsonObject.optional(), meta: jsonObject.optional() })
    .optional()
    .meta({ description: 'Stored on the round as submitted (`outcome` is its label); never sent to the casino, never interpreted.' }),
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
