import { presentAward, type Award, type Knex } from '@relay/shared';
import { playableAwards } from '../data/awards';
import { resolveSession, type SessionAccessDeps } from './session-access';

/**
 * The free-round awards a game may offer the player of a session (issue 35): the session's casino,
 * player, game and currency, playable now. The session is checked as every session route checks
 * it (the caller must own its game); the casino is not called, and the session is unchanged.
 */
export async function sessionAwards(deps: SessionAccessDeps & { db: Knex }, callerGroupId: string, sessionId: string): Promise<Award[]> {
  const { session } = await resolveSession(deps, callerGroupId, sessionId, {});
  const rows = await playableAwards(deps.db, { providerId: session.providerId, playerId: session.playerId, gameId: session.gameId, currency: session.currency });
  return rows.map(presentAward);
}
