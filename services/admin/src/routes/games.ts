import { Router } from 'express';
import { z } from 'zod';
import { badRequest, handler, pageMeta, sendEnvelope } from '@relay/shared';
import type { AdminDeps } from '../domain/deps';
import { getGame, listGames, saveGame } from '../domain/games';
import { getTemplate, saveTemplate } from '../domain/templates';
import { PROPERTY_TYPES, type TemplateProperty } from '../domain/gameConfigRules';
import { presentGame, presentTemplate } from './present';
import { gameIdParam, httpUrl, name, pagination, parse, recordId, status } from './validation';

export const gameBody = z.object({
  gameId: z.number().optional().meta({ description: 'When given, must equal the one in the path.' }),
  name,
  groupId: recordId.meta({ description: 'The game provider that owns the game.' }),
  frontendUrl: httpUrl({ allowQuery: true }).meta({ description: 'Where launches redirect the player: absolute http(s); its own query parameters are kept and win a clash.' }),
  status: status.default('ACTIVE'),
});

const configValue = z.union([z.string().max(4096), z.number(), z.boolean()]);

/** Shape only; the template rules (reserved names, dropdown values, default types) are domain rules. */
export const templateBody = z.object({
  gameId: z.number().optional(),
  properties: z
    .array(
      z.object({
        name: z.string().min(1, 'must not be empty').max(100),
        type: z.enum(PROPERTY_TYPES, { error: `must be one of ${PROPERTY_TYPES.join(', ')}` }),
        values: z.array(z.union([z.string().max(1024), z.number()])).max(200).optional(),
        required: z.boolean().default(false),
        default: configValue.optional(),
      }),
    )
    .max(200),
});

export const gamePath = z.object({ gameId: gameIdParam });
export const gameList = pagination.extend({ groupId: recordId.optional().meta({ description: "Only this game provider's games." }) });

export function gameRoutes(deps: AdminDeps): Router {
  const router = Router();

  router.put('/games/:gameId', handler(async (req, res) => {
    const { gameId } = parse(gamePath, req.params);
    const { gameId: bodyId, ...input } = parse(gameBody, req.body);
    if (bodyId !== undefined && bodyId !== gameId) throw badRequest('gameId in the body must equal the one in the path');
    sendEnvelope(res, 200, 'Game saved', presentGame(await saveGame(deps, gameId, input)));
  }));

  router.get('/games', handler(async (req, res) => {
    const { page, limit, groupId } = parse(gameList, req.query);
    const { total, games } = await listGames(deps, { groupId }, page, limit);
    sendEnvelope(res, 200, 'Games fetched successfully', games.map(presentGame), pageMeta(total, page, limit));
  }));

  router.get('/games/:gameId', handler(async (req, res) => {
    const { gameId } = parse(gamePath, req.params);
    sendEnvelope(res, 200, 'Game fetched successfully', presentGame(await getGame(deps, gameId)));
  }));

  router.put('/games/:gameId/config-template', handler(async (req, res) => {
    const { gameId } = parse(gamePath, req.params);
    const body = parse(templateBody, req.body);
    if (body.gameId !== undefined && body.gameId !== gameId) throw badRequest('gameId in the body must equal the one in the path');
    // Stored in a fixed attribute order, without attributes that were not given.
    const properties: TemplateProperty[] = body.properties.map((p) => ({
      name: p.name,
      type: p.type,
      ...(p.values !== undefined ? { values: p.values } : {}),
      required: p.required,
      ...(p.default !== undefined ? { default: p.default } : {}),
    }));
    sendEnvelope(res, 200, 'Config template saved', presentTemplate(await saveTemplate(deps, gameId, properties)));
  }));

  router.get('/games/:gameId/config-template', handler(async (req, res) => {
    const { gameId } = parse(gamePath, req.params);
    sendEnvelope(res, 200, 'Config template fetched successfully', presentTemplate(await getTemplate(deps, gameId)));
  }));

  return router;
}
