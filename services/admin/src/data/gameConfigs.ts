import type { Knex } from '@relay/shared';
import type { ConfigValues, TemplateProperty } from '../domain/gameConfigRules';

export interface TemplateRecord {
  gameId: number;
  properties: TemplateProperty[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface TemplateRow {
  game_id: number;
  properties: TemplateProperty[];
  version: number;
  created_at: Date;
  updated_at: Date;
}

function toTemplate(row: TemplateRow): TemplateRecord {
  return { gameId: row.game_id, properties: row.properties, version: row.version, createdAt: row.created_at, updatedAt: row.updated_at };
}

export async function findTemplate(db: Knex, gameId: number): Promise<TemplateRecord | null> {
  const row = (await db<TemplateRow>('game_config_templates').where({ game_id: gameId }).first()) as TemplateRow | undefined;
  return row ? toTemplate(row) : null;
}

/** Every change bumps the version, so a reader can tell which template a config was checked against. */
export async function upsertTemplate(db: Knex, gameId: number, properties: TemplateProperty[]): Promise<TemplateRecord> {
  const json = JSON.stringify(properties); // jsonb: pg would send a JS array as a PostgreSQL array
  const [row] = (await db('game_config_templates')
    .insert({ game_id: gameId, properties: json })
    .onConflict('game_id')
    .merge({ properties: json, version: db.raw('game_config_templates.version + 1'), updated_at: db.fn.now() })
    .returning('*')) as TemplateRow[];
  return toTemplate(row);
}

export interface CasinoGameConfigRecord {
  providerId: string;
  gameId: number;
  overrides: ConfigValues;
  createdAt: Date;
  updatedAt: Date;
}

interface ConfigRow {
  provider_id: string;
  game_id: number;
  overrides: ConfigValues;
  created_at: Date;
  updated_at: Date;
}

function toConfig(row: ConfigRow): CasinoGameConfigRecord {
  return { providerId: row.provider_id, gameId: row.game_id, overrides: row.overrides, createdAt: row.created_at, updatedAt: row.updated_at };
}

export async function findCasinoGameConfig(db: Knex, providerId: string, gameId: number): Promise<CasinoGameConfigRecord | null> {
  const row = (await db<ConfigRow>('casino_game_configs').where({ provider_id: providerId, game_id: gameId }).first()) as ConfigRow | undefined;
  return row ? toConfig(row) : null;
}

export async function listConfigsOfGame(db: Knex, gameId: number): Promise<CasinoGameConfigRecord[]> {
  const rows = (await db<ConfigRow>('casino_game_configs').where({ game_id: gameId }).orderBy('provider_id')) as ConfigRow[];
  return rows.map(toConfig);
}

export async function upsertCasinoGameConfig(db: Knex, providerId: string, gameId: number, overrides: ConfigValues): Promise<CasinoGameConfigRecord> {
  const json = JSON.stringify(overrides);
  const [row] = (await db('casino_game_configs')
    .insert({ provider_id: providerId, game_id: gameId, overrides: json })
    .onConflict(['provider_id', 'game_id'])
    .merge({ overrides: json, updated_at: db.fn.now() })
    .returning('*')) as ConfigRow[];
  return toConfig(row);
}

/** A template change that removed properties drops the casino's overrides of them (see templates.ts). */
export async function replaceOverrides(db: Knex, providerId: string, gameId: number, overrides: ConfigValues): Promise<void> {
  await db('casino_game_configs')
    .where({ provider_id: providerId, game_id: gameId })
    .update({ overrides: JSON.stringify(overrides), updated_at: db.fn.now() });
}
