import { afterPosition, keysetPage, orderBy, pageKey, type KeysetPosition, type SortColumn } from '@relay/ledger';
import { awardColumns, whereEffectiveState, type AwardRow, type AwardState, type Knex } from '@relay/shared';
import { bounded } from './bounded';

/**
 * The free_round_awards table (money database). Every read here returns the state as every
 * answer shows it (@relay/shared free-rounds.ts: an award past its expiry reads as EXPIRED).
 */
const TABLE = 'free_round_awards';

/** What a new award stores; game_ids sorted, group_ids the games' providers now. */
export interface NewAward {
  id: string;
  providerId: string;
  awardId: string;
  campaignId: string | null;
  playerId: string;
  currency: string;
  gameIds: number[];
  groupIds: string[];
  rounds: number;
  /** Exact decimal text, two decimals. */
  betValue: string;
  startsAt: Date;
  expiresAt: Date;
}

/** The bet limits of each of a casino's games in a currency, and which games it configured at all. */
export interface GameLimits {
  gameId: number;
  groupId: string;
  /** Whether the casino has a currency config for the game in any currency. */
  configured: boolean;
  minBet: string | null;
  maxBet: string | null;
}

export function awardsQuery(db: Knex): Knex.QueryBuilder {
  return db(TABLE);
}

/** The games (null when not registered) with the casino's configuration of each for the currency. */
export async function gameLimits(db: Knex, providerId: string, currency: string, gameIds: number[]): Promise<Map<number, GameLimits>> {
  const rows = await db('games as g')
    .whereIn('g.game_id', gameIds)
    .select(
      'g.game_id',
      'g.group_id',
      db.raw('EXISTS (SELECT 1 FROM currency_configs a WHERE a.provider_id = ? AND a.game_id = g.game_id) AS configured', [providerId]),
      db.raw('(SELECT c.min_bet::text FROM currency_configs c WHERE c.provider_id = ? AND c.game_id = g.game_id AND c.currency = ?) AS min_bet', [providerId, currency]),
      db.raw('(SELECT c.max_bet::text FROM currency_configs c WHERE c.provider_id = ? AND c.game_id = g.game_id AND c.currency = ?) AS max_bet', [providerId, currency]),
    );
  return new Map(rows.map((r: Record<string, any>) => [r.game_id as number, { gameId: r.game_id, groupId: r.group_id, configured: r.configured, minBet: r.min_bet, maxBet: r.max_bet }]));
}

/** Inserts the award unless the casino already has one with this award id: then null. */
export async function insertAward(db: Knex, award: NewAward): Promise<AwardRow | null> {
  const inserted = await db(TABLE)
    .insert({
      id: award.id,
      provider_id: award.providerId,
      award_id: award.awardId,
      campaign_id: award.campaignId,
      player_id: award.playerId,
      currency: award.currency,
      game_ids: award.gameIds,
      group_ids: award.groupIds,
      rounds: award.rounds,
      bet_value: award.betValue,
      starts_at: award.startsAt,
      expires_at: award.expiresAt,
    })
    .onConflict(['provider_id', 'award_id'])
    .ignore()
    .returning('award_id');
  return inserted.length ? readAward(db, award.providerId, award.awardId) : null;
}

/** One award of a casino, through `scoped` (the caller's scope), locked for update when asked. */
export async function readAward(db: Knex, providerId: string, awardId: string, options: { scoped?: (q: Knex.QueryBuilder) => Knex.QueryBuilder; lock?: boolean } = {}): Promise<AwardRow | null> {
  let query = db(TABLE).where({ [`${TABLE}.provider_id`]: providerId, [`${TABLE}.award_id`]: awardId }).first(awardColumns(db, TABLE));
  if (options.scoped) query = options.scoped(query);
  if (options.lock) query = query.forUpdate();
  return ((await query) as AwardRow | undefined) ?? null;
}

export async function cancelAward(db: Knex, providerId: string, awardId: string): Promise<AwardRow> {
  await db(TABLE).where({ provider_id: providerId, award_id: awardId }).update({ state: 'CANCELLED', updated_at: db.fn.now() });
  return (await readAward(db, providerId, awardId)) as AwardRow;
}

export interface AwardFilter {
  providerId?: string;
  playerId?: string;
  campaignId?: string;
  state?: AwardState;
}

/** Newest first: (created_at DESC, id ASC), the order free_round_awards_created walks. */
export const AWARD_SORT: SortColumn = { column: 'created_at', nullable: false, type: 'timestamp' };

/** One page of `scoped` (the caller's scope over the table) after `after`, limit + 1 read to know whether there is a next. */
export async function listAwards(db: Knex, scoped: Knex.QueryBuilder, filter: AwardFilter, limit: number, after?: KeysetPosition): Promise<{ rows: AwardRow[]; next: KeysetPosition | null }> {
  const query = scoped.select(awardColumns(db, TABLE)).select(`${TABLE}.id`, pageKey(db, TABLE, AWARD_SORT));
  if (filter.providerId) query.where(`${TABLE}.provider_id`, filter.providerId);
  if (filter.playerId) query.where(`${TABLE}.player_id`, filter.playerId);
  if (filter.campaignId) query.where(`${TABLE}.campaign_id`, filter.campaignId);
  if (filter.state) whereEffectiveState(query, TABLE, filter.state);
  if (after) afterPosition(query, TABLE, AWARD_SORT, 'desc', after);
  // On the money database: cancelled on the server past the back office's time limit (a 503).
  const rows = await bounded<AwardRow[]>(query.orderByRaw(orderBy(TABLE, AWARD_SORT, 'desc')).limit(limit + 1));
  return keysetPage(rows, limit);
}
