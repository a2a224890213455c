import type { CasinoIdEntry, CasinoRepository, CasinoSummary, CurrencyConfig, TemplateProperty } from '../data/casinos';

/**
 * What a game provider may know about casinos: their ids, and for the casinos that configured one
 * of its games, that configuration (spec, Casino catalog entry).
 */

export interface GameConfig {
  /** Always complete: every template property, the casino's value where it set one, else the default. */
  values: Record<string, unknown>;
  /** The properties the casino set explicitly, in template order. */
  overrides: string[];
}

export interface CatalogGame {
  gameId: number;
  name: string;
  status: string;
  gameConfig: GameConfig | null;
  currencyConfigs: CurrencyConfig[];
}

export type CatalogEntry = CasinoSummary & { games: CatalogGame[] };

export interface CatalogFilter {
  gameId?: number;
  providerId?: string;
}

export class Catalog {
  constructor(private readonly casinos: CasinoRepository) {}

  casinoIds(days?: number): Promise<CasinoIdEntry[]> {
    return this.casinos.ids(days);
  }

  async catalog(groupId: string, filter: CatalogFilter): Promise<CatalogEntry[]> {
    // A game of another game provider is simply not among the caller's games: an empty answer.
    const games = await this.casinos.gamesOfGroup(groupId, filter.gameId);
    if (games.length === 0) return [];
    const gameIds = games.map((g) => g.gameId);
    const [templates, gameConfigs, currencyConfigs] = await Promise.all([
      this.casinos.templates(gameIds),
      this.casinos.gameConfigs(gameIds, filter.providerId),
      this.casinos.currencyConfigs(gameIds, filter.providerId),
    ]);

    // A casino appears for a game once it configured anything for it: settings or a currency.
    const configured = new Map<string, Map<number, { overrides: Record<string, unknown>; currencies: CurrencyConfig[] }>>();
    const slot = (providerId: string, gameId: number) => {
      let perGame = configured.get(providerId);
      if (!perGame) configured.set(providerId, (perGame = new Map()));
      let entry = perGame.get(gameId);
      if (!entry) perGame.set(gameId, (entry = { overrides: {}, currencies: [] }));
      return entry;
    };
    for (const config of gameConfigs) slot(config.providerId, config.gameId).overrides = config.overrides;
    for (const currency of currencyConfigs) slot(currency.providerId, currency.gameId).currencies.push(currency);
    if (configured.size === 0) return [];

    const casinos = await this.casinos.casinos([...configured.keys()]);
    return casinos.map((casino) => {
      const perGame = configured.get(casino.providerId)!;
      return {
        providerId: casino.providerId,
        name: casino.name,
        createdAt: casino.createdAt,
        games: games
          .filter((game) => perGame.has(game.gameId))
          .map((game) => {
            const entry = perGame.get(game.gameId)!;
            return {
              gameId: game.gameId,
              name: game.name,
              status: game.status,
              gameConfig: resolveGameConfig(templates.get(game.gameId), entry.overrides),
              currencyConfigs: entry.currencies,
            };
          }),
      };
    });
  }
}

/** Template defaults with the casino's overrides applied; null when the game has no template. */
export function resolveGameConfig(template: TemplateProperty[] | undefined, overrides: Record<string, unknown>): GameConfig | null {
  if (!template) return null;
  const overridden = template.map((p) => p.name).filter((name) => Object.prototype.hasOwnProperty.call(overrides, name));
  // fromEntries defines own keys: no property name can reach the object's prototype.
  const values = Object.fromEntries(
    // A property that is neither defaulted nor set still has its key, so `values` stays complete.
    template.map((p) => [p.name, overridden.includes(p.name) ? overrides[p.name] : (p.default ?? null)]),
  );
  return { values, overrides: overridden };
}
