import { AppError, currentContext, type Casino, type Game, type Registry, type SecretBox, type SessionRecord, type SessionStore } from '@relay/shared';

export interface ResolvedSession {
  session: SessionRecord;
  /**
   * Owned by the caller (checked): its groupId, not the session's, is the group the records of
   * this call belong to; they differ only after an operator moved the game to another provider.
   */
  game: Game;
  casino: Casino;
  /** Opened only when a casino is called: a replay or a refused call never decrypts it. */
  walletToken(): string;
}

export interface SessionAccessDeps {
  sessions: SessionStore;
  registry: Registry;
  secrets: SecretBox;
}

/**
 * Every check a session-scoped call makes before anything reaches a casino, in the order of the
 * spec's validation table. The session must exist (or, for the retry route, still be archived);
 * its game must be registered and owned by the caller before anything about the session is
 * compared, so another game provider learns nothing from the answer. Ownership is the game's
 * owner now (spec, Authentication 4), not at launch: a game moved to another provider takes its
 * open sessions with it, so credits owed on them can still be paid.
 */
export async function resolveSession(
  deps: SessionAccessDeps,
  callerGroupId: string,
  sessionId: string,
  expect: { gameId?: number; currency?: string; fromArchive?: boolean },
): Promise<ResolvedSession> {
  // PostgreSQL text cannot hold NUL, so no session has such an id: unknown, not a failed query.
  if (sessionId.includes('\u0000')) throw new AppError('SESSION_EXPIRED', 'Session is unknown or expired');
  const session = expect.fromArchive ? await deps.sessions.getArchived(sessionId) : await deps.sessions.getLive(sessionId);
  if (!session) throw new AppError('SESSION_EXPIRED', 'Session is unknown or expired');
  // From here on every log line of the request names the casino (the access log line too).
  const ctx = currentContext();
  if (ctx) ctx.providerId = session.providerId;

  const game = await deps.registry.game(session.gameId);
  if (!game) throw new AppError('GAME_NOT_FOUND', 'Session references an unregistered game');
  if (game.groupId !== callerGroupId) {
    throw new AppError('GAME_NOT_OWNED_BY_GROUP', 'Game is registered to another game provider');
  }
  if (expect.gameId !== undefined && expect.gameId !== session.gameId) {
    throw new AppError('SESSION_GAME_MISMATCH', 'Session was opened for another game');
  }
  if (expect.currency !== undefined && expect.currency.toUpperCase() !== session.currency.toUpperCase()) {
    throw new AppError('SESSION_CURRENCY_MISMATCH', 'Currency is not the session currency');
  }
  if (game.status !== 'ACTIVE') throw new AppError('GAME_NOT_ACTIVE', 'Game is disabled');

  const casino = await deps.registry.casino(session.providerId);
  if (!casino) throw new AppError('PROVIDER_NOT_FOUND', 'Casino was removed');
  if (casino.status !== 'ACTIVE') throw new AppError('PROVIDER_NOT_ACTIVE', 'Casino is disabled');

  let walletToken: string | undefined;
  return { session, game, casino, walletToken: () => (walletToken ??= deps.secrets.open(session.walletTokenSealed)) };
}

/** The fields every casino wallet call carries about the player and session (docs/api/casino.json). */
export function casinoPlayerFields({ session, walletToken }: ResolvedSession) {
  return {
    providerId: session.providerId,
    playerId: session.playerId,
    walletToken: walletToken(),
    sessionId: session.sessionId,
    gameId: session.gameId,
    currency: session.currency,
  };
}
