import type { CasinoClient } from '@relay/shared';
import { casinoPlayerFields, resolveSession, type SessionAccessDeps } from './session-access';

export interface SessionView {
  valid: true;
  sessionId: string;
  gameId: number;
  gameName: string;
  groupId: string;
  providerId: string;
  playerId: string;
  currency: string;
  language: string;
  expiresAt: string;
}

/**
 * A 200 here means the session exists for that game and currency, the caller owns the game, and
 * the casino has just confirmed the player's token with one live balance call.
 */
export async function validateSession(
  deps: SessionAccessDeps & { casinos: CasinoClient },
  callerGroupId: string,
  sessionId: string,
  expect: { gameId: number; currency?: string },
): Promise<SessionView> {
  const resolved = await resolveSession(deps, callerGroupId, sessionId, expect);
  const { session, game, casino } = resolved;
  const answer = await deps.casinos.call(casino, 'balance', casinoPlayerFields(resolved));
  if (!answer.ok) throw answer.error;
  return {
    valid: true,
    sessionId: session.sessionId,
    gameId: session.gameId,
    gameName: game.name,
    groupId: game.groupId,
    providerId: session.providerId,
    playerId: session.playerId,
    currency: session.currency,
    language: session.language,
    expiresAt: session.expiresAt,
  };
}
