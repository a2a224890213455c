import { Router } from 'express';
import { z } from 'zod';
import { badRequest, handler, sendEnvelope } from '@relay/shared';
import type { AdminDeps } from '../domain/deps';
import { getCasinoGameConfig, saveCasinoGameConfig } from '../domain/casinoGameConfigs';
import { deleteCurrencyConfig, listCurrencyConfigs, saveCurrencyConfig } from '../domain/currencyConfigs';
import { presentCasinoGameConfig, presentCurrencyConfig } from './present';
import { amount, currencyCode, gameIdParam, parse, recordId } from './validation';

/** Value types are checked against the template in the domain (INVALID_GAME_CONFIG, not 400 Bad Request). */
export const configBody = z.object({
  values: z.record(z.string(), z.unknown()),
});

/** Auto-cashout values are multipliers, not money: any non-negative number. */
const multiplier = z.number().min(0).max(1e9).nullable().default(null);

export const currencyBody = z.object({
  currency: z.string().optional(),
  minBet: amount,
  maxBet: amount,
  defaultBet: amount,
  betSuggestions: z.array(amount).max(50).default([]),
  maxWin: amount,
  minAutoCashout: multiplier,
  maxAutoCashout: multiplier,
  defaultAutoCashout: multiplier,
  isRoundable: z.boolean().default(false),
  isDefault: z.boolean().default(false),
});

export const casinoGamePath = z.object({ providerId: recordId, gameId: gameIdParam });
export const currencyPath = casinoGamePath.extend({ currency: currencyCode });

export function casinoGameRoutes(deps: AdminDeps): Router {
  const router = Router();

  router.put('/casinos/:providerId/games/:gameId/config', handler(async (req, res) => {
    const { providerId, gameId } = parse(casinoGamePath, req.params);
    const { values } = parse(configBody, req.body);
    const saved = await saveCasinoGameConfig(deps, providerId, gameId, values);
    sendEnvelope(res, 200, 'Game config saved', presentCasinoGameConfig(saved));
  }));

  router.get('/casinos/:providerId/games/:gameId/config', handler(async (req, res) => {
    const { providerId, gameId } = parse(casinoGamePath, req.params);
    sendEnvelope(res, 200, 'Game config fetched successfully', presentCasinoGameConfig(await getCasinoGameConfig(deps, providerId, gameId)));
  }));

  router.get('/casinos/:providerId/games/:gameId/currencies', handler(async (req, res) => {
    const { providerId, gameId } = parse(casinoGamePath, req.params);
    const configs = await listCurrencyConfigs(deps, providerId, gameId);
    sendEnvelope(res, 200, 'Currency configs fetched successfully', configs.map(presentCurrencyConfig));
  }));

  router.put('/casinos/:providerId/games/:gameId/currencies/:currency', handler(async (req, res) => {
    const key = parse(currencyPath, req.params);
    const { currency, ...input } = parse(currencyBody, req.body);
    if (currency !== undefined && currency.toUpperCase() !== key.currency.toUpperCase()) {
      throw badRequest('currency in the body must equal the one in the path', [{ path: 'currency', message: `expected ${key.currency}` }]);
    }
    sendEnvelope(res, 200, 'Currency config saved', presentCurrencyConfig(await saveCurrencyConfig(deps, key, input)));
  }));

  router.delete('/casinos/:providerId/games/:gameId/currencies/:currency', handler(async (req, res) => {
    const key = parse(currencyPath, req.params);
    await deleteCurrencyConfig(deps, key);
    sendEnvelope(res, 200, 'Currency config deleted', null);
  }));

  return router;
}
