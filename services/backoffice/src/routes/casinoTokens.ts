import { Router } from 'express';
import { z } from 'zod';
import type { BackofficeDeps } from '../domain/deps';
import { handler, sendEnvelope } from '@relay/shared';
import { callerOf } from '../domain/access';
import { issueCasinoToken, listCasinoTokens, revokeCasinoToken } from '../domain/casinoTokens';
import { presentToken } from './present';
import { factsOf, parse, recordId, uuid } from './validation';

export const casinoPath = z.object({ providerId: recordId });
export const tokenPath = z.object({ providerId: recordId, tokenId: uuid });
export const tokenBody = z.object({ name: z.string().trim().min(1).max(200) });

/** Casino API tokens: issued and revoked by platform admins, audited, the token shown only once. */
export function casinoTokenRoutes(deps: BackofficeDeps): Router {
  return Router()
    .post('/casinos/:providerId/api-tokens', handler(async (req, res) => {
      const { providerId } = parse(casinoPath, req.params);
      const { name } = parse(tokenBody, req.body);
      const issued = await issueCasinoToken(deps, factsOf(req), providerId, name);
      res.setHeader('Cache-Control', 'no-store');
      sendEnvelope(res, 201, 'Casino API token created; it is shown only in this response', { ...presentToken(issued), token: issued.token });
    }))
    .get('/casinos/:providerId/api-tokens', handler(async (req, res) => {
      const { providerId } = parse(casinoPath, req.params);
      sendEnvelope(res, 200, 'Casino API tokens fetched successfully', (await listCasinoTokens(deps, callerOf(req.identity), providerId)).map(presentToken));
    }))
    .delete('/casinos/:providerId/api-tokens/:tokenId', handler(async (req, res) => {
      const { providerId, tokenId } = parse(tokenPath, req.params);
      await revokeCasinoToken(deps, factsOf(req), providerId, tokenId);
      sendEnvelope(res, 200, 'Casino API token revoked', null);
    }));
}
