import { awardColumns, runPrepared, type AwardRow, type Knex, type Statement } from '@relay/shared';
import { SUCCESS_CTES, successBindings, type SuccessFacts } from './transactions';

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

/** An award as a managed freebet credit checks it, read under its row lock, on the database's clock. */
export interface LockedAward {
  playerId: string;
  currency: string;
  gameIds: number[];
  rounds: number;
  roundsPlayed: number;
  /** numeric(20,2) as text: compared as an exact decimal, never as a float. */
  betValue: string;
  state: string;
  started: boolean;
  expired: boolean;
}

/**
 * The award a freebet credit names, locked FOR UPDATE until the caller's transaction ends: of
 * concurrent credits for its last round, each re-reads it here after the one before committed, so
 * exactly one finds a round left. By the unique key (provider_id, award_id); null when this casino
 * has no such award (nothing is locked then).
 */
export async function lockAward(trx: Knex.Transaction, providerId: string, awardId: string): Promise<LockedAward | null> {
  const result = await trx.raw(
    `SELECT player_id, currency, game_ids, rounds, rounds_played, bet_value::text AS bet_value, state,
            starts_at <= now() AS started, expires_at <= now() AS expired
       FROM free_round_awards WHERE provider_id = ? AND award_id = ? FOR UPDATE`,
    [providerId, awardId],
  );
  const row = result.rows[0];
  if (!row) return null;
  return {
    playerId: row.player_id,
    currency: row.currency,
    gameIds: row.game_ids,
    rounds: row.rounds,
    roundsPlayed: row.rounds_played,
    betValue: row.bet_value,
    state: row.state,
    started: row.started,
    expired: row.expired,
  };
}

/**
 * Consumes one round of a locked award for a transactionId just claimed, in the claim's own
 * transaction: the play is recorded under the claim's key, rounds_played counts it, the first
 * round makes the award IN_PROGRESS, and the last (or a forfeit, isLastFreebet) COMPLETED.
 */
export async function consumeRound(trx: Knex.Transaction, play: { providerId: string; awardId: string; transactionId: string; forfeitRest: boolean }): Promise<void> {
  await trx.raw(
    `WITH a AS (
       UPDATE free_round_awards
          SET rounds_played = rounds_played + 1,
              state = CASE WHEN rounds_played + 1 >= rounds OR ? THEN 'COMPLETED' ELSE 'IN_PROGRESS' END,
              updated_at = now()
        WHERE provider_id = ? AND award_id = ?
        RETURNING rounds_played
     )
     INSERT INTO free_round_plays (provider_id, transaction_id, award_id, round_number)
     SELECT ?, ?, ?, rounds_played FROM a`,
    [play.forfeitRest, play.providerId, play.awardId, play.providerId, play.transactionId, play.awardId],
  );
}

const FREEBET_SUCCESS_SQL = `WITH ${SUCCESS_CTES},
      -- The award this transactionId consumed a round of (free_round_plays, migration 004, written with its claim),
      -- if any: a freebet of a passthrough casino has none and changes nothing here.
      won AS (
        UPDATE free_round_awards a SET total_won = a.total_won + ?, updated_at = now()
          FROM free_round_plays p
         WHERE p.provider_id = ? AND p.transaction_id = ?
           AND a.provider_id = p.provider_id AND a.award_id = p.award_id
           AND EXISTS (SELECT 1 FROM tx)
        RETURNING a.award_id
      )
    SELECT 1`;

/**
 * A freebet credit's SUCCESS: the transaction and its attempt (SUCCESS_CTES) and the award's
 * total_won, in one statement. SUCCESS is written once per transactionId (only by the attempt that
 * owns the PENDING row), so the amount this attempt paid is added exactly once, and a crash
 * leaves both undone (the record stays PENDING; its repeat pays and adds it).
 */
export function freebetSuccessStatement(s: SuccessFacts, credit: { providerId: string; transactionId: string; amount: string }): Statement {
  return { sql: FREEBET_SUCCESS_SQL, bindings: [...successBindings(s), credit.amount, credit.providerId, credit.transactionId] };
}

export async function recordFreebetSuccess(db: Knex, s: SuccessFacts, credit: { providerId: string; transactionId: string; amount: string }): Promise<void> {
  await runPrepared(db, freebetSuccessStatement(s, credit));
}

/**
 * A credit's reason, award and bet value as recorded, for a managed casino's takeover check: from
 * its row, or from the copy its key keeps once the month was archived (null where an older copy
 * did not keep them).
 */
export async function recordedCredit(db: Knex, providerId: string, transactionId: string): Promise<{ reason: string | null; awardId: string | null; betAmount: string | null } | null> {
  const { rows } = await db.raw<{ rows: { reason: string | null; award_id: string | null; bet_amount: string | null }[] }>(
    `SELECT coalesce(t.reason, k.archived->>'reason') AS reason, coalesce(t.award_id, k.archived->>'award_id') AS award_id,
            coalesce(t.bet_amount::text, k.archived->>'bet_amount') AS bet_amount
       FROM transaction_keys k
       LEFT JOIN transactions t ON t.id = k.id AND t.created_at = k.created_at
      WHERE k.provider_id = ? AND k.transaction_id = ?`,
    [providerId, transactionId],
  );
  const row = rows[0];
  return row ? { reason: row.reason, awardId: row.award_id, betAmount: row.bet_amount } : null;
}
