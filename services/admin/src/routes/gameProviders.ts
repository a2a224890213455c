import { Router } from 'express';
import { z } from 'zod';
import { badRequest, handler, pageMeta, sendEnvelope } from '@relay/shared';
import type { AdminDeps } from '../domain/deps';
import {
  getGameProvider,
  listGameProviders,
  issueProviderToken,
  removeLaunchEncryptionKey,
  revokeProviderToken,
  saveGameProvider,
  setLaunchEncryptionKey,
} from '../domain/gameProviders';
import { presentGameProvider } from './present';
import { name, pagination, parse, recordId, status } from './validation';

export const groupBody = z.object({
  groupId: z.string().optional().meta({ description: 'When given, must equal the one in the path.' }),
  name,
  status: status.default('ACTIVE').meta({ description: 'INACTIVE refuses every game route of this provider (GROUP_NOT_ACTIVE).' }),
  /** Per game provider override of RATE_LIMIT_PER_SECOND; null means the platform default. */
  rateLimitPerSecond: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .nullable()
    .default(null)
    .meta({ description: 'Requests per second across all gateways; null: the platform default; 0: no limit.' }),
});

// Any text gets to the key check, so a wrong key is INVALID_PUBLIC_KEY rather than a generic 400.
export const keyBody = z.object({ publicKeyPem: z.string().max(16384) });

export const groupPath = z.object({ groupId: recordId });
export const tokenPath = z.object({ groupId: recordId, tokenId: z.string().min(1).max(128) });

export function gameProviderRoutes(deps: AdminDeps): Router {
  const router = Router();

  router.put('/game-providers/:groupId', handler(async (req, res) => {
    const { groupId } = parse(groupPath, req.params);
    const { groupId: bodyId, ...input } = parse(groupBody, req.body);
    if (bodyId !== undefined && bodyId !== groupId) throw badRequest('groupId in the body must equal the one in the path');
    sendEnvelope(res, 200, 'Game provider saved', presentGameProvider(await saveGameProvider(deps, groupId, input)));
  }));

  router.get('/game-providers', handler(async (req, res) => {
    const { page, limit } = parse(pagination, req.query);
    const { total, groups } = await listGameProviders(deps, page, limit);
    sendEnvelope(res, 200, 'Game providers fetched successfully', groups.map((g) => presentGameProvider(g)), pageMeta(total, page, limit));
  }));

  router.get('/game-providers/:groupId', handler(async (req, res) => {
    const { groupId } = parse(groupPath, req.params);
    const { group, tokens } = await getGameProvider(deps, groupId);
    sendEnvelope(res, 200, 'Game provider fetched successfully', presentGameProvider(group, tokens));
  }));

  router.post('/game-providers/:groupId/tokens', handler(async (req, res) => {
    const { groupId } = parse(groupPath, req.params);
    sendEnvelope(res, 201, 'Game provider token created; it is shown only in this response', await issueProviderToken(deps, groupId));
  }));

  router.delete('/game-providers/:groupId/tokens/:tokenId', handler(async (req, res) => {
    const { groupId, tokenId } = parse(tokenPath, req.params);
    await revokeProviderToken(deps, groupId, tokenId);
    sendEnvelope(res, 200, 'Game provider token revoked', null);
  }));

  router.put('/game-providers/:groupId/launch-encryption-key', handler(async (req, res) => {
    const { groupId } = parse(groupPath, req.params);
    const { publicKeyPem } = parse(keyBody, req.body);
    const saved = await setLaunchEncryptionKey(deps, groupId, publicKeyPem);
    sendEnvelope(res, 200, 'Launch encryption key saved', { ...saved, updatedAt: saved.updatedAt.toISOString() });
  }));

  router.delete('/game-providers/:groupId/launch-encryption-key', handler(async (req, res) => {
    const { groupId } = parse(groupPath, req.params);
    await removeLaunchEncryptionKey(deps, groupId);
    sendEnvelope(res, 200, 'Launch encryption key removed', null);
  }));

  return router;
}
