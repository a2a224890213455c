import type { Knex } from 'knex';
import { toJsonNumber } from './money';

/**
 * Free-round awards (issue 35), as every service reads them: the back office manages them, the
 * wallet shows a session's player the ones it may play. One table in the money database
 * (`free_round_awards`, @relay/ledger migration 002).
 */
export const AWARD_STATES = ['ACTIVE', 'IN_PROGRESS', 'COMPLETED', 'EXPIRED', 'CANCELLED'] as const;
export type AwardState = (typeof AWARD_STATES)[number];

/**
 * A casino's free-rounds mode (casinos.free_rounds_mode): `passthrough` relays a freebet credit's
 * awardId unchecked (the spec's behaviour, the default); `managed` checks it against the casino's
 * awards and consumes a round (services/wallet/src/domain/free-round-credit.ts).
 */
export const FREE_ROUNDS_MODES = ['passthrough', 'managed'] as const;
export type FreeRoundsMode = (typeof FREE_ROUNDS_MODES)[number];

/** The states in which rounds may still be played, before the expiry. */
export const PLAYABLE_STATES: readonly AwardState[] = ['ACTIVE', 'IN_PROGRESS'];

/**
 * The state as every answer shows it: an award still playable whose expiry has passed reads as
 * EXPIRED, on the database's clock, even before the expiry job (a later slice) writes it. One
 * expression for what a list shows and what its `state` filter matches.
 */
export function effectiveStateSql(table: string): string {
  return `CASE WHEN "${table}".state IN ('ACTIVE', 'IN_PROGRESS') AND "${table}".expires_at <= now() THEN 'EXPIRED' ELSE "${table}".state END`;
}

/** Narrows a query over `table` to awards whose state, as shown, is `state`. */
export function whereEffectiveState(query: Knex.QueryBuilder, table: string, state: AwardState): Knex.QueryBuilder {
  return query.whereRaw(`(${effectiveStateSql(table)}) = ?`, [state]);
}

/** The columns an award is read with, the state as effectiveStateSql shows it. */
export function awardColumns(db: Knex, table: string): (string | Knex.Raw)[] {
  return [
    ...['provider_id', 'award_id', 'campaign_id', 'player_id', 'currency', 'game_ids', 'rounds', 'rounds_played', 'starts_at', 'expires_at', 'created_at', 'updated_at'].map((c) => `${table}.${c}`),
    db.raw(`"${table}".bet_value::text AS bet_value`),
    db.raw(`"${table}".total_won::text AS total_won`),
    db.raw(`${effectiveStateSql(table)} AS state`),
  ];
}

export interface AwardRow {
  provider_id: string;
  award_id: string;
  campaign_id: string | null;
  player_id: string;
  currency: string;
  game_ids: number[];
  rounds: number;
  rounds_played: number;
  bet_value: string;
  total_won: string;
  starts_at: Date;
  expires_at: Date;
  state: AwardState;
  created_at: Date;
  updated_at: Date;
}

/** An award as every route answers it: money as JSON numbers, times as ISO-8601 UTC. */
export interface Award {
  providerId: string;
  awardId: string;
  campaignId: string | null;
  playerId: string;
  currency: string;
  gameIds: number[];
  rounds: number;
  roundsPlayed: number;
  roundsRemaining: number;
  betValue: number;
  totalWon: number;
  startsAt: string;
  expiresAt: string;
  state: AwardState;
  createdAt: string;
  updatedAt: string;
}

export function presentAward(row: AwardRow): Award {
  const playable = PLAYABLE_STATES.includes(row.state);
  return {
    providerId: row.provider_id,
    awardId: row.award_id,
    campaignId: row.campaign_id,
    playerId: row.player_id,
    currency: row.currency,
    gameIds: row.game_ids,
    rounds: row.rounds,
    roundsPlayed: row.rounds_played,
    // A cancelled, expired or completed award has no rounds left to play, whatever was not played.
    roundsRemaining: playable ? row.rounds - row.rounds_played : 0,
    betValue: toJsonNumber(row.bet_value) as number,
    totalWon: toJsonNumber(row.total_won) as number,
    startsAt: row.starts_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    state: row.state,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
