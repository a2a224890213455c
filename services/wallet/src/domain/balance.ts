import type { CasinoClient } from '@relay/shared';
import { resolveSession, type SessionAccessDeps } from './session-access';

export interface Account {
  id: string;
  balance: number;
  username: string;
}

/** Balance read: relayed to the casino on every call; nothing cached, nothing changed. */
export async function readBalance(
  deps: SessionAccessDeps & { casinos: CasinoClient },
  callerGroupId: string,
  sessionId: string,
  currency: string | undefined,
): Promise<Account> {
  const { session, casino, walletToken } = await resolveSession(deps, callerGroupId, sessionId, { currency });
  const answer = await deps.casinos.call(casino, 'balance', {
    providerId: session.providerId,
    playerId: session.playerId,
    walletToken,
    sessionId: session.sessionId,
    gameId: session.gameId,
    currency: session.currency,
  });
  if (!answer.ok) throw answer.error;
  return { id: session.playerId, balance: answer.balance, username: answer.username ?? session.username ?? session.playerId };
}
