import { Router } from 'express';
import { z } from 'zod';
import { AWARD_STATES, handler, isValidAmount, sendEnvelope } from '@relay/shared';
import { callerOf } from '../domain/access';
import type { BackofficeDeps } from '../domain/deps';
import { cancelAward, createAward, listAwards, readAward } from '../domain/freeRounds';
import { idParam, limitParam } from './money-params';
import { sendKeysetList } from './present-money';
import { factsOf, parse, recordId } from './validation';

/** The most rounds one award may grant. */
export const MAX_AWARD_ROUNDS = 1000;

const instant = z.string().datetime({ offset: true, message: 'must be an ISO-8601 instant with a time zone' }).transform((s) => new Date(s));

export const awardCasinoPath = z.object({ providerId: recordId });
export const awardPath = z.object({ providerId: recordId, awardId: recordId });

/** POST /casinos/{providerId}/free-rounds. The period's rules that depend on the time are the domain's. */
export const awardBody = z.object({
  awardId: recordId.meta({ description: "The casino's own id of the award: its idempotency key." }),
  campaignId: recordId.optional().meta({ description: "The casino's campaign, if any." }),
  playerId: z.string().min(1).max(200).regex(/^[^:]*$/, "must not contain ':'").meta({ description: "The casino's player id." }),
  currency: z.string().regex(/^[A-Za-z0-9]{2,16}$/, 'must be a currency code of 2 to 16 letters or digits').transform((c) => c.toUpperCase()),
  gameIds: z.array(z.number().int().min(1).max(2147483647)).min(1).max(100).refine((ids) => new Set(ids).size === ids.length, 'must not repeat a game')
    .meta({ description: 'The games the rounds may be played in: each configured by the casino in this currency, allowing betValue.' }),
  rounds: z.number().int().min(1).max(MAX_AWARD_ROUNDS).meta({ description: `Rounds granted, 1 to ${MAX_AWARD_ROUNDS}.` }),
  betValue: z.number().refine((v) => isValidAmount(v) && v > 0, 'must be a positive number with at most 2 decimals')
    .meta({ description: "The bet of each round: a JSON number above 0 with at most 2 decimals, within each game's min and max bet.", exclusiveMinimum: 0, exclusiveMaximum: 1e13 }),
  startsAt: instant.meta({ description: 'From when the rounds may be played.' }),
  expiresAt: instant.meta({ description: `Until when (exclusive): after startsAt, still ahead, at most 30 days from now.` }),
}).strict();

export const awardListQuery = z.object({
  providerId: idParam.optional(),
  playerId: idParam.optional(),
  campaignId: idParam.optional(),
  state: z.enum(AWARD_STATES).optional(),
  limit: limitParam,
  cursor: z.string().max(400).optional(),
}).strict();

/**
 * Free-round awards: created and cancelled by a casino's systems (its casino API token) and by the
 * casino's or the platform's admin and support people; read in every scope (domain/freeRounds.ts).
 */
export function freeRoundRoutes(deps: BackofficeDeps): Router {
  return Router()
    .post('/casinos/:providerId/free-rounds', handler(async (req, res) => {
      const { providerId } = parse(awardCasinoPath, req.params);
      const input = parse(awardBody, req.body);
      const { award, created } = await createAward(deps, factsOf(req), providerId, input);
      sendEnvelope(res, created ? 201 : 200, created ? 'Award created' : 'Award exists already; nothing was changed', award);
    }))
    .get('/casinos/:providerId/free-rounds/:awardId', handler(async (req, res) => {
      const { providerId, awardId } = parse(awardPath, req.params);
      sendEnvelope(res, 200, 'Award fetched successfully', await readAward(deps, callerOf(req.identity), providerId, awardId));
    }))
    .post('/casinos/:providerId/free-rounds/:awardId/cancel', handler(async (req, res) => {
      const { providerId, awardId } = parse(awardPath, req.params);
      sendEnvelope(res, 200, 'Award cancelled', await cancelAward(deps, factsOf(req), providerId, awardId));
    }))
    .get('/free-rounds', handler(async (req, res) => {
      const found = await listAwards(deps, callerOf(req.identity), parse(awardListQuery, req.query));
      sendKeysetList(res, 'Awards fetched successfully', found.awards, { nextCursor: found.nextCursor });
    }));
}
