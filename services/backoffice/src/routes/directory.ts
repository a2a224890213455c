import { Router } from 'express';
import type { BackofficeDeps } from '../domain/deps';
import { handler, sendEnvelope } from '@relay/shared';
import { callerOf } from '../domain/access';
import { listCasinos, listGameProviders } from '../domain/directory';

/** Casinos and game providers in the caller's scope: names and status only. */
export function directoryRoutes(deps: BackofficeDeps): Router {
  return Router()
    .get('/casinos', handler(async (req, res) => {
      sendEnvelope(res, 200, 'Casinos fetched successfully', await listCasinos(deps, callerOf(req.identity)));
    }))
    .get('/game-providers', handler(async (req, res) => {
      sendEnvelope(res, 200, 'Game providers fetched successfully', await listGameProviders(deps, callerOf(req.identity)));
    }));
}
