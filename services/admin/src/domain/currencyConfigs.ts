import { AppError, badRequest } from '@relay/shared';
import * as currencies from '../data/currencyConfigs';
import type { CurrencyConfigRecord } from '../data/currencyConfigs';
import type { AdminDeps } from './deps';
import { requireCasinoAndGame } from './casinoGameConfigs';
import { currencyConfigProblems, type CurrencyConfigInput } from './currencyRules';

/**
 * Currency codes are stored upper-case: the wallet and validation routes compare currencies
 * case-insensitively, so "usd" and "USD" are one config, never two.
 */
export async function saveCurrencyConfig(
  deps: AdminDeps,
  key: { providerId: string; gameId: number; currency: string },
  input: CurrencyConfigInput,
): Promise<CurrencyConfigRecord> {
  const problems = currencyConfigProblems(input);
  if (problems.length > 0) throw badRequest(`Invalid currency config: ${problems[0].message}`, problems);
  const normalized = { ...key, currency: key.currency.toUpperCase() };
  const record = await deps.db.transaction(async (trx) => {
    await requireCasinoAndGame(trx, key.providerId, key.gameId);
    if (input.isDefault) {
      // Serialises default changes of one casino and game: two currencies made default at the
      // same moment must not both stay default.
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`currency-default:${key.providerId}:${key.gameId}`]);
      await currencies.clearOtherDefaults(trx, normalized);
    }
    return currencies.upsertCurrencyConfig(trx, normalized, input);
  });
  await deps.publishChange({ kind: 'config', key: `${key.providerId}:${key.gameId}` });
  return record;
}

export async function listCurrencyConfigs(deps: AdminDeps, providerId: string, gameId: number): Promise<CurrencyConfigRecord[]> {
  await requireCasinoAndGame(deps.db, providerId, gameId);
  return currencies.listCurrencyConfigs(deps.db, providerId, gameId);
}

export async function deleteCurrencyConfig(deps: AdminDeps, key: { providerId: string; gameId: number; currency: string }): Promise<void> {
  await requireCasinoAndGame(deps.db, key.providerId, key.gameId);
  const deleted = await currencies.deleteCurrencyConfig(deps.db, { ...key, currency: key.currency.toUpperCase() });
  if (!deleted) throw new AppError('CURRENCY_CONFIG_NOT_FOUND', `Casino "${key.providerId}" has no ${key.currency.toUpperCase()} config for game ${key.gameId}`);
  await deps.publishChange({ kind: 'config', key: `${key.providerId}:${key.gameId}` });
}
