import { newId, toJsonNumber, type Knex } from '@relay/shared';
import type { CurrencyConfigInput } from '../domain/currencyRules';

export interface CurrencyConfigRecord extends Omit<CurrencyConfigInput, 'minAutoCashout' | 'maxAutoCashout' | 'defaultAutoCashout'> {
  id: string;
  providerId: string;
  gameId: number;
  currency: string;
  minAutoCashout: number | null;
  maxAutoCashout: number | null;
  defaultAutoCashout: number | null;
  createdAt: Date;
  updatedAt: Date;
}

interface CurrencyRow {
  id: string;
  provider_id: string;
  game_id: number;
  currency: string;
  min_bet: string;
  max_bet: string;
  default_bet: string;
  bet_suggestions: (number | string)[];
  max_win: string;
  min_auto_cashout: string | null;
  max_auto_cashout: string | null;
  default_auto_cashout: string | null;
  is_roundable: boolean;
  is_default: boolean;
  created_at: Date;
  updated_at: Date;
}

/** NUMERIC comes back from pg as text; the edge speaks JSON numbers. */
function toRecord(row: CurrencyRow): CurrencyConfigRecord {
  return {
    id: row.id,
    providerId: row.provider_id,
    gameId: row.game_id,
    currency: row.currency,
    minBet: toJsonNumber(row.min_bet) as number,
    maxBet: toJsonNumber(row.max_bet) as number,
    defaultBet: toJsonNumber(row.default_bet) as number,
    betSuggestions: row.bet_suggestions.map((s) => toJsonNumber(s) as number),
    maxWin: toJsonNumber(row.max_win) as number,
    minAutoCashout: toJsonNumber(row.min_auto_cashout),
    maxAutoCashout: toJsonNumber(row.max_auto_cashout),
    defaultAutoCashout: toJsonNumber(row.default_auto_cashout),
    isRoundable: row.is_roundable,
    isDefault: row.is_default,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function upsertCurrencyConfig(
  db: Knex,
  key: { providerId: string; gameId: number; currency: string },
  c: CurrencyConfigInput,
): Promise<CurrencyConfigRecord> {
  // Amounts go in as their JSON text, so NUMERIC receives exactly the decimal the caller wrote.
  const values = {
    min_bet: String(c.minBet),
    max_bet: String(c.maxBet),
    default_bet: String(c.defaultBet),
    bet_suggestions: JSON.stringify(c.betSuggestions),
    max_win: String(c.maxWin),
    min_auto_cashout: c.minAutoCashout === null ? null : String(c.minAutoCashout),
    max_auto_cashout: c.maxAutoCashout === null ? null : String(c.maxAutoCashout),
    default_auto_cashout: c.defaultAutoCashout === null ? null : String(c.defaultAutoCashout),
    is_roundable: c.isRoundable,
    is_default: c.isDefault,
  };
  const [row] = (await db('currency_configs')
    .insert({ id: newId(), provider_id: key.providerId, game_id: key.gameId, currency: key.currency, ...values })
    .onConflict(['provider_id', 'game_id', 'currency'])
    .merge({ ...values, updated_at: db.fn.now() })
    .returning('*')) as CurrencyRow[];
  return toRecord(row);
}

/** Only one default currency per casino and game. */
export async function clearOtherDefaults(db: Knex, key: { providerId: string; gameId: number; currency: string }): Promise<void> {
  await db('currency_configs')
    .where({ provider_id: key.providerId, game_id: key.gameId, is_default: true })
    .whereNot({ currency: key.currency })
    .update({ is_default: false, updated_at: db.fn.now() });
}

export async function listCurrencyConfigs(db: Knex, providerId: string, gameId: number): Promise<CurrencyConfigRecord[]> {
  const rows = (await db<CurrencyRow>('currency_configs').where({ provider_id: providerId, game_id: gameId }).orderBy('currency')) as CurrencyRow[];
  return rows.map(toRecord);
}

export async function deleteCurrencyConfig(db: Knex, key: { providerId: string; gameId: number; currency: string }): Promise<boolean> {
  const deleted = await db('currency_configs').where({ provider_id: key.providerId, game_id: key.gameId, currency: key.currency }).delete();
  return deleted > 0;
}
