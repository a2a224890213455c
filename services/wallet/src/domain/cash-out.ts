import { toMoneyString } from '@relay/shared';
import { recordDebitSuccess } from '../data/rounds';
import type { Account } from './balance';
import { moveMoney, recordKeys, type MovementDeps, type MovementRequest } from './money-movement';
import { casinoPlayerFields, resolveSession } from './session-access';

export interface CashOutRequest extends MovementRequest {
  game?: { gameData?: Record<string, unknown>; meta?: Record<string, unknown> };
}

/** Debits the bet and, once the casino accepts it, opens the round holding gameData unchanged. */
export async function cashOut(deps: MovementDeps, callerGroupId: string, req: CashOutRequest): Promise<Account> {
  const resolved = await resolveSession(deps, callerGroupId, req.sessionId, { gameId: req.gameId, currency: req.currency });
  const { session } = resolved;
  const language = req.language ?? session.language;
  const amount = toMoneyString(req.amount);
  return moveMoney(deps, {
    resolved,
    operation: 'debit',
    request: req,
    record: {
      ...recordKeys(resolved, req),
      previousTransactionId: null,
      category: 'CASH_OUT',
      amount,
      reason: null,
      appliedMultiplier: null,
      betAmount: amount,
      awardId: null,
      campaignId: null,
      isLastFreebet: null,
      isRetry: false,
    },
    casinoBody: () => ({
      ...casinoPlayerFields(resolved),
      roundId: req.roundId,
      transactionId: req.transactionId,
      amount: req.amount,
    }),
    complete: async (success) => {
      const opened = await recordDebitSuccess(deps.db, success, {
        providerId: session.providerId,
        roundId: req.roundId,
        groupId: resolved.game.groupId,
        gameId: session.gameId,
        playerId: session.playerId,
        sessionId: session.sessionId,
        currency: session.currency,
        language,
        betAmount: amount,
        betTransactionId: req.transactionId,
        gameData: req.game?.gameData,
      });
      if (opened === 'ALREADY_EXISTED') deps.logger.warn({ roundId: req.roundId, transactionId: req.transactionId }, 'round already open: debit recorded, round left as it was');
      if (opened === 'OPENED_SETTLED') deps.logger.info({ roundId: req.roundId, transactionId: req.transactionId }, 'round opened settled: a credit settling this bet succeeded first');
    },
  });
}
