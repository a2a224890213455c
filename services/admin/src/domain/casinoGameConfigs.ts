import { AppError, type Knex } from '@relay/shared';
import { findCasino } from '../data/casinos';
import { findGame } from '../data/games';
import * as configs from '../data/gameConfigs';
import type { CasinoGameConfigRecord } from '../data/gameConfigs';
import type { AdminDeps } from './deps';
import { providerNotFound } from './casinos';
import { gameNotFound } from './games';
import { configProblems, effectiveValues, type ConfigValues, type TemplateProperty } from './gameConfigRules';

/** A casino's config of one game as the catalog shows it: complete values and the names it set. */
export interface CasinoGameConfigView {
  providerId: string;
  gameId: number;
  values: ConfigValues;
  overrides: string[];
  templateVersion: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Stores a casino's overrides for a game. Without a template the game reads no settings, so the
 * only acceptable config is an empty one (every named property would be unknown).
 */
export async function saveCasinoGameConfig(deps: AdminDeps, providerId: string, gameId: number, overrides: Record<string, unknown>): Promise<CasinoGameConfigView> {
  const view = await deps.db.transaction(async (trx) => {
    await requireCasinoAndGame(trx, providerId, gameId);
    const template = await configs.findTemplate(trx, gameId);
    const properties = template?.properties ?? [];
    const problems = configProblems(properties, overrides);
    if (problems.length > 0) {
      throw new AppError('INVALID_GAME_CONFIG', `Invalid game config: ${problems[0].message}`, { details: problems });
    }
    // configProblems accepted every value as fitting its property's type.
    const stored = await configs.upsertCasinoGameConfig(trx, providerId, gameId, overrides as ConfigValues);
    return toView(stored, properties, template?.version ?? null);
  });
  await deps.publishChange({ kind: 'config', key: `${providerId}:${gameId}` });
  return view;
}

export async function getCasinoGameConfig(deps: AdminDeps, providerId: string, gameId: number): Promise<CasinoGameConfigView> {
  await requireCasinoAndGame(deps.db, providerId, gameId);
  const stored = await configs.findCasinoGameConfig(deps.db, providerId, gameId);
  if (!stored) throw new AppError('GAME_CONFIG_NOT_FOUND', `Casino "${providerId}" has no config for game ${gameId}`);
  const template = await configs.findTemplate(deps.db, gameId);
  return toView(stored, template?.properties ?? [], template?.version ?? null);
}

/** Names in template order: jsonb keeps no key order, and a stable answer is easier to diff. */
function toView(stored: CasinoGameConfigRecord, properties: TemplateProperty[], templateVersion: number | null): CasinoGameConfigView {
  return {
    providerId: stored.providerId,
    gameId: stored.gameId,
    values: effectiveValues(properties, stored.overrides),
    overrides: properties.filter((p) => Object.hasOwn(stored.overrides, p.name)).map((p) => p.name),
    templateVersion,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
  };
}

/**
 * Both must exist (404 naming the missing one). Inside a transaction the rows are held FOR SHARE,
 * so neither can be deleted, and no template change runs, until the config is written.
 */
export async function requireCasinoAndGame(db: Knex, providerId: string, gameId: number): Promise<void> {
  const inTransaction = db.isTransaction === true;
  if (!(await findCasino(db, providerId, inTransaction ? 'share' : undefined))) throw providerNotFound(providerId);
  if (!(await findGame(db, gameId, inTransaction ? 'share' : undefined))) throw gameNotFound(gameId);
}
