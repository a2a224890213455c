import { Router } from 'express';
import { z } from 'zod';
import { badRequest, FREE_ROUNDS_MODES, handler, pageMeta, sendEnvelope } from '@relay/shared';
import type { AdminDeps } from '../domain/deps';
import { deleteCasino, getCasino, getFreeRoundsMode, listCasinos, saveCasino, setFreeRoundsMode } from '../domain/casinos';
import { presentCasino } from './present';
import { httpUrl, name, pagination, parse, recordId, status } from './validation';

/** docs/integrating-a-casino.md: the launch key is 32 bytes, exchanged as base64url (stored unpadded). */
const launchKey = z
  .string()
  .transform((text) => text.replace(/=+$/, ''))
  .refine((text) => /^[A-Za-z0-9_-]{43}$/.test(text) && Buffer.from(text, 'base64url').toString('base64url') === text, 'must be 32 bytes encoded as base64url');

// The descriptions are published in the API reference (docs/api/admin.json).
export const casinoBody = z.object({
  providerId: z.string().optional().meta({ description: 'When given, must equal the one in the path.' }),
  name,
  walletUrl: httpUrl({ allowQuery: false }).meta({ description: 'Where the relay calls the wallet protocol (POST {walletUrl}/{operation}): absolute http(s), no credentials, query or fragment.' }),
  // It keys the HMAC of every wallet call: a short one could be guessed.
  walletSecret: z
    .string()
    .min(16, 'must be at least 16 characters')
    .max(512)
    .optional()
    .meta({ description: 'Keys the signature of every wallet call. Absent: one is generated and returned once, in this answer only.' }),
  launchKey: launchKey.optional().meta({ description: '32 bytes as base64url; seals the launch tokens. Absent: one is generated and returned once, in this answer only.' }),
  status: status.default('ACTIVE'),
  refundOnCreditFail: z.boolean().default(false).meta({ description: 'Games may refund a debit that failed with a server error (cash-in reason CASHOUT_FAILED).' }),
  creditOnDisconnect: z.boolean().default(false).meta({ description: 'Games may pay a disconnected player (the DISCONNECT_* cash-in reasons).' }),
});

export const casinoPath = z.object({ providerId: recordId });

/** Issue 35: a route of its own, so the casino PUT body (CONTRACTS 5) stays as it is. */
export const freeRoundsModeBody = z.object({
  mode: z.enum(FREE_ROUNDS_MODES).meta({
    description:
      '`passthrough` (the default): a freebet credit\'s awardId is relayed to the casino unchecked, as the spec has it. `managed`: every freebet credit (FREEBET_WIN, FREEBET_LOST, DISCONNECT_FREEBET_WIN) must name a playable award of this casino and consumes one of its rounds.',
  }),
});

export function casinoRoutes(deps: AdminDeps): Router {
  const router = Router();

  router.put('/casinos/:providerId', handler(async (req, res) => {
    const { providerId } = parse(casinoPath, req.params);
    const { providerId: bodyId, walletSecret, launchKey: key, ...fields } = parse(casinoBody, req.body);
    if (bodyId !== undefined && bodyId !== providerId) throw badRequest('providerId in the body must equal the one in the path');
    const { casino, generated } = await saveCasino(deps, providerId, { ...fields, walletSecret, launchKey: key });
    sendEnvelope(res, 200, 'Casino saved', presentCasino(casino, generated));
  }));

  router.get('/casinos', handler(async (req, res) => {
    const { page, limit } = parse(pagination, req.query);
    const { total, casinos } = await listCasinos(deps, page, limit);
    sendEnvelope(res, 200, 'Casinos fetched successfully', casinos.map((c) => presentCasino(c)), pageMeta(total, page, limit));
  }));

  router.get('/casinos/:providerId', handler(async (req, res) => {
    const { providerId } = parse(casinoPath, req.params);
    sendEnvelope(res, 200, 'Casino fetched successfully', presentCasino(await getCasino(deps, providerId)));
  }));

  router.put('/casinos/:providerId/free-rounds', handler(async (req, res) => {
    const { providerId } = parse(casinoPath, req.params);
    const { mode } = parse(freeRoundsModeBody, req.body);
    sendEnvelope(res, 200, 'Free-rounds mode saved', { providerId, mode: await setFreeRoundsMode(deps, providerId, mode) });
  }));

  router.get('/casinos/:providerId/free-rounds', handler(async (req, res) => {
    const { providerId } = parse(casinoPath, req.params);
    sendEnvelope(res, 200, 'Free-rounds mode fetched successfully', { providerId, mode: await getFreeRoundsMode(deps, providerId) });
  }));

  router.delete('/casinos/:providerId', handler(async (req, res) => {
    const { providerId } = parse(casinoPath, req.params);
    await deleteCasino(deps, providerId);
    sendEnvelope(res, 200, 'Casino deleted', null);
  }));

  return router;
}
