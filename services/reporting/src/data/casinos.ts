import type { Knex } from '@relay/shared';
import { isoTimestamp, optionalNumber, requiredNumber, withoutEmpty } from './format';
import { withTimeout } from './pagedList';

/**
 * Casino-side reads for game providers. Only a casino's providerId, name and createdAt ever leave
 * this file (spec: "Only casino providerId, name and createdAt are exposed about a casino"): the
 * wallet URL, secrets, status and switches are never selected.
 */

export interface CasinoIdEntry {
  providerId: string;
  createdAt: string;
}

export interface CasinoSummary {
  providerId: string;
  name: string;
  createdAt: string;
}

export interface GameRecord {
  gameId: number;
  name: string;
  status: string;
}

export interface TemplateProperty {
  name: string;
  type: string;
  values?: unknown[];
  required?: boolean;
  default?: unknown;
}

export interface CasinoGameConfigRecord {
  providerId: string;
  gameId: number;
  overrides: Record<string, unknown>;
}

export interface CurrencyConfig {
  id: string;
  providerId: string;
  gameId: number;
  currency: string;
  minBet: number;
  maxBet: number;
  defaultBet: number;
  betSuggestions: number[];
  maxWin: number;
  minAutoCashout?: number;
  maxAutoCashout?: number;
  defaultAutoCashout?: number;
  isRoundable: boolean;
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
}

interface CurrencyConfigRow {
  id: string;
  provider_id: string;
  game_id: number;
  currency: string;
  min_bet: string;
  max_bet: string;
  default_bet: string;
  bet_suggestions: unknown;
  max_win: string;
  min_auto_cashout: string | null;
  max_auto_cashout: string | null;
  default_auto_cashout: string | null;
  is_roundable: boolean;
  is_default: boolean;
  created_at: Date;
  updated_at: Date;
}

export class CasinoRepository {
  constructor(private readonly read: Knex) {}

  /** Every registered casino, newest first; with `days`, only those registered in the last N days. */
  async ids(days?: number): Promise<CasinoIdEntry[]> {
    const query = this.read('casinos').select('provider_id', 'created_at');
    if (days !== undefined) query.whereRaw(`created_at >= now() - make_interval(days => ?)`, [days]);
    const rows = await withTimeout<{ provider_id: string; created_at: Date }[]>(
      query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'provider_id', order: 'asc' }]),
    );
    return rows.map((r) => ({ providerId: r.provider_id, createdAt: isoTimestamp(r.created_at) }));
  }

  async gamesOfGroup(groupId: string, gameId?: number): Promise<GameRecord[]> {
    const query = this.read('games').select('game_id', 'name', 'status').where('group_id', groupId);
    if (gameId !== undefined) query.where('game_id', gameId);
    const rows = await withTimeout<{ game_id: number; name: string; status: string }[]>(query.orderBy('game_id'));
    return rows.map((r) => ({ gameId: r.game_id, name: r.name, status: r.status }));
  }

  async templates(gameIds: number[]): Promise<Map<number, TemplateProperty[]>> {
    const rows = await withTimeout<{ game_id: number; properties: unknown }[]>(
      this.read('game_config_templates').select('game_id', 'properties').whereIn('game_id', gameIds),
    );
    return new Map(rows.map((r) => [r.game_id, Array.isArray(r.properties) ? (r.properties as TemplateProperty[]) : []]));
  }

  async gameConfigs(gameIds: number[], providerId?: string): Promise<CasinoGameConfigRecord[]> {
    const query = this.read('casino_game_configs').select('provider_id', 'game_id', 'overrides').whereIn('game_id', gameIds);
    if (providerId !== undefined) query.where('provider_id', providerId);
    const rows = await withTimeout<{ provider_id: string; game_id: number; overrides: unknown }[]>(query);
    return rows.map((r) => ({
      providerId: r.provider_id,
      gameId: r.game_id,
      overrides: r.overrides && typeof r.overrides === 'object' && !Array.isArray(r.overrides) ? (r.overrides as Record<string, unknown>) : {},
    }));
  }

  async currencyConfigs(gameIds: number[], providerId?: string): Promise<CurrencyConfig[]> {
    const query = this.read('currency_configs')
      .select(
        'id', 'provider_id', 'game_id', 'currency', 'min_bet', 'max_bet', 'default_bet', 'bet_suggestions', 'max_win',
        'min_auto_cashout', 'max_auto_cashout', 'default_auto_cashout', 'is_roundable', 'is_default', 'created_at', 'updated_at',
      )
      .whereIn('game_id', gameIds);
    if (providerId !== undefined) query.where('provider_id', providerId);
    const rows = await withTimeout<CurrencyConfigRow[]>(query.orderBy([{ column: 'currency' }, { column: 'id' }]));
    return rows.map(toCurrencyConfig);
  }

  async casinos(providerIds: string[]): Promise<CasinoSummary[]> {
    const rows = await withTimeout<{ provider_id: string; name: string; created_at: Date }[]>(
      this.read('casinos')
        .select('provider_id', 'name', 'created_at')
        .whereIn('provider_id', providerIds)
        .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'provider_id', order: 'asc' }]),
    );
    return rows.map((r) => ({ providerId: r.provider_id, name: r.name, createdAt: isoTimestamp(r.created_at) }));
  }
}

function toCurrencyConfig(row: CurrencyConfigRow): CurrencyConfig {
  const suggestions = Array.isArray(row.bet_suggestions) ? row.bet_suggestions : [];
  return withoutEmpty({
    id: row.id,
    providerId: row.provider_id,
    gameId: row.game_id,
    currency: row.currency,
    minBet: requiredNumber(row.min_bet),
    maxBet: requiredNumber(row.max_bet),
    defaultBet: requiredNumber(row.default_bet),
    // Stored as JSON; whatever the writer used (numbers or numeric text), the game gets numbers.
    betSuggestions: suggestions.map((s) => requiredNumber(s as string | number)),
    maxWin: requiredNumber(row.max_win),
    minAutoCashout: optionalNumber(row.min_auto_cashout),
    maxAutoCashout: optionalNumber(row.max_auto_cashout),
    defaultAutoCashout: optionalNumber(row.default_auto_cashout),
    isRoundable: row.is_roundable,
    isDefault: row.is_default,
    createdAt: isoTimestamp(row.created_at),
    updatedAt: isoTimestamp(row.updated_at),
  });
}
