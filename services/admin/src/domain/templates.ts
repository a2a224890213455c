import { AppError, badRequest } from '@relay/shared';
import { findGame } from '../data/games';
import * as configs from '../data/gameConfigs';
import type { TemplateRecord } from '../data/gameConfigs';
import type { AdminDeps } from './deps';
import { gameNotFound } from './games';
import { templateChangeProblems, templateProblems, withoutRemovedProperties, type ConfigValues, type TemplateProperty } from './gameConfigRules';

export interface BrokenCasinoConfig {
  providerId: string;
  problems: { path: string; message: string }[];
}

/**
 * Create or change a game's config template (spec: template change rules). A change is refused
 * only when it breaks some casino's stored config: a new required property without default it has
 * not answered, a dropdown value it uses that is gone, or a property whose type changed under a
 * value it set. Adding a property with a default never breaks anyone.
 *
 * Removing a property breaks nobody: the game no longer reads it. The casinos' overrides of it are
 * dropped in the same transaction, so that a later property of the same name (perhaps of another
 * type, perhaps required) starts from the template's default instead of reviving a stale answer
 * that was never checked against it.
 */
export async function saveTemplate(deps: AdminDeps, gameId: number, properties: TemplateProperty[]): Promise<TemplateRecord> {
  const problems = templateProblems(properties);
  if (problems.length > 0) throw badRequest(`Invalid config template: ${problems[0].message}`, problems);

  const template = await deps.db.transaction(async (trx) => {
    // FOR UPDATE on the game waits for casino config writes of this game (they hold FOR SHARE)
    // and keeps new ones out until the template is in place.
    if (!(await findGame(trx, gameId, 'update'))) throw gameNotFound(gameId);
    const before = (await configs.findTemplate(trx, gameId))?.properties ?? [];
    const stored = await configs.listConfigsOfGame(trx, gameId);
    const broken: BrokenCasinoConfig[] = [];
    const pruned: { providerId: string; overrides: ConfigValues }[] = [];
    for (const config of stored) {
      const kept = withoutRemovedProperties(properties, config.overrides);
      const configBreaks = templateChangeProblems(before, properties, config.overrides);
      if (configBreaks.length > 0) broken.push({ providerId: config.providerId, problems: configBreaks });
      else if (Object.keys(kept).length !== Object.keys(config.overrides).length) pruned.push({ providerId: config.providerId, overrides: kept });
    }
    if (broken.length > 0) {
      throw new AppError('TEMPLATE_CHANGE_REJECTED', `The template change would break the config of ${broken.length} casino(s)`, {
        data: { providerIds: broken.map((b) => b.providerId), casinos: broken },
      });
    }
    for (const p of pruned) await configs.replaceOverrides(trx, p.providerId, gameId, p.overrides);
    return configs.upsertTemplate(trx, gameId, properties);
  });
  await deps.publishChange({ kind: 'config', key: String(gameId) });
  return template;
}

export async function getTemplate(deps: AdminDeps, gameId: number): Promise<TemplateRecord> {
  if (!(await findGame(deps.db, gameId))) throw gameNotFound(gameId);
  const template = await configs.findTemplate(deps.db, gameId);
  if (!template) throw new AppError('TEMPLATE_NOT_FOUND', `Game ${gameId} has no config template`);
  return template;
}
