import type { CasinoClient } from '@relay/shared';
import { casinoPlayerFields, resolveSession, type SessionAccessDeps } from './session-access';

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
  const resolved = await resolveSession(deps, callerGroupId, sessionId, { currency });
  const { session, casino } = resolved;
  const answer = await deps.casinos.call(casino, 'balance', casinoPlayerFields(resolved));
  if (!answer.ok) throw answer.error;
  return { id: session.playerId, balance: answer.balance, username: answer.username ?? session.username ?? session.playerId };
}
