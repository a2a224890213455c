import { awardColumns, type AwardRow, type Knex } from '@relay/shared';

/** At most this many playable awards are answered, those that run out soonest. */
export const PLAYABLE_AWARDS_LIMIT = 50;

/**
 * The awards a player may play now in a game and currency: playable (ACTIVE or IN_PROGRESS),
 * started, not expired, with rounds left. Walks free_round_awards_player (provider_id, player_id);
 * oldest expiry first, so a game offers the award that runs out soonest.
 */
export async function playableAwards(db: Knex, key: { providerId: string; playerId: string; gameId: number; currency: string }): Promise<AwardRow[]> {
  return (await db('free_round_awards as a')
    .where({ 'a.provider_id': key.providerId, 'a.player_id': key.playerId })
    .whereRaw('upper(a.currency) = upper(?)', [key.currency])
    .whereRaw('a.game_ids @> ARRAY[?]::integer[]', [key.gameId])
    .whereIn('a.state', ['ACTIVE', 'IN_PROGRESS'])
    .whereRaw('a.starts_at <= now() AND a.expires_at > now() AND a.rounds_played < a.rounds')
    .orderBy([{ column: 'a.expires_at', order: 'asc' }, { column: 'a.award_id', order: 'asc' }])
    // A bound on the money path's database whatever a casino has awarded one player.
    .limit(PLAYABLE_AWARDS_LIMIT)
    .select(awardColumns(db, 'a'))) as AwardRow[];
}
