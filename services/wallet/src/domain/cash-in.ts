import { AppError, money, toMoneyString } from '@relay/shared';
import { recordCreditSuccess } from '../data/rounds';
import { recordFreebetSuccess } from '../data/awards';
import { findTransaction } from '../data/transactions';
import type { Account } from './balance';
import { reasonAllowedFor, SETTLES_A_BET, type CashInReason } from './cash-in-reasons';
import { claimFreeRound, isManagedFreebet, sameCredit } from './free-round-credit';
import { moveMoney, recordKeys, type MovementDeps, type MovementRequest } from './money-movement';
import { casinoPlayerFields, resolveSession } from './session-access';

export interface CashInRequest extends MovementRequest {
  reason: CashInReason;
  appliedMultiplier: number;
  previousTransactionId?: string;
  betAmount?: number;
  awardId?: string;
  campaignId?: string;
  isLastFreebet?: boolean;
  game?: { outcome?: string; settlementData?: Record<string, unknown>; meta?: Record<string, unknown> };
}

/**
 * Credits the player (win, refund, or a zero-amount loss). A reason that settles a bet settles the
 * round; a second settlement is recorded as a transaction while the round keeps its first one.
 * The retry route is the same movement, flagged isRetry, resolving an expired session from the archive.
 */
export async function cashIn(deps: MovementDeps, callerGroupId: string, req: CashInRequest, isRetry: boolean): Promise<Account> {
  const resolved = await resolveSession(deps, callerGroupId, req.sessionId, { gameId: req.gameId, currency: req.currency, fromArchive: isRetry });
  const { session, casino } = resolved;
  // A reason the casino has not enabled starts no new credit; an earlier SUCCESS is still replayed.
  if (!reasonAllowedFor(req.reason, casino) && (await findTransaction(deps.db, session.providerId, req.transactionId))?.status !== 'SUCCESS') {
    throw new AppError('Bad Request', `reason ${req.reason} is not enabled for this casino`, { details: [{ path: 'reason', message: 'not enabled for this casino' }] });
  }
  const amount = toMoneyString(req.amount);
  const betAmount = req.betAmount ?? 0;
  const multiplier = money(req.appliedMultiplier).toFixed();
  // Managed free rounds (issue 35): a new freebet credit is checked against its award and consumes
  // a round with its claim; a passthrough casino's freebet is relayed unchecked, as the spec has it.
  const managedFreebet = isManagedFreebet(casino, req.reason);
  const claim = managedFreebet
    ? claimFreeRound(deps.db, {
        providerId: session.providerId,
        playerId: session.playerId,
        gameId: session.gameId,
        currency: session.currency,
        awardId: req.awardId,
        betAmount: toMoneyString(betAmount),
        isLastFreebet: req.isLastFreebet === true,
      })
    : undefined;
  return moveMoney(deps, {
    claim,
    resolved,
    operation: 'credit',
    request: { ...req, isRetry },
    record: {
      ...recordKeys(resolved, req),
      previousTransactionId: req.previousTransactionId ?? null,
      category: 'CASH_IN',
      amount,
      reason: req.reason,
      appliedMultiplier: multiplier,
      betAmount: toMoneyString(betAmount),
      awardId: req.awardId ?? null,
      campaignId: req.campaignId ?? null,
      isLastFreebet: req.isLastFreebet ?? null,
      isRetry,
    },
    casinoBody: () => ({
      ...casinoPlayerFields(resolved),
      roundId: req.roundId,
      transactionId: req.transactionId,
      amount: req.amount,
      reason: req.reason,
      appliedMultiplier: req.appliedMultiplier,
      betAmount,
      ...(req.previousTransactionId !== undefined ? { previousTransactionId: req.previousTransactionId } : {}),
      ...(req.awardId !== undefined ? { awardId: req.awardId } : {}),
      ...(req.campaignId !== undefined ? { campaignId: req.campaignId } : {}),
      ...(req.isLastFreebet !== undefined ? { isLastFreebet: req.isLastFreebet } : {}),
      isRetry,
    }),
    // In managed mode a transactionId taken over (its attempt FAILED or was abandoned) must be the
    // same credit: a freebet stays a freebet of its award and bet value, and nothing else becomes one.
    beforeTakeover: casino.freeRoundsMode === 'managed'
      ? () => sameCredit(deps.db, { providerId: session.providerId, transactionId: req.transactionId }, { reason: req.reason, awardId: req.awardId ?? null, betAmount: toMoneyString(betAmount) })
      : undefined,
    complete: async (success) => {
      // Managed only: a passthrough casino's freebet is recorded exactly as before (issue 35, point 1).
      if (managedFreebet) {
        // A freebet settles no bet, and its betAmount is no stake: no round is opened or settled.
        // The award whose round it consumed (managed mode) adds what it paid to its total_won.
        await recordFreebetSuccess(deps.db, success, { providerId: session.providerId, transactionId: req.transactionId, amount });
        return;
      }
      // Disconnect credits settle no bet: a transaction only.
      const settles = SETTLES_A_BET.has(req.reason);
      const result = await recordCreditSuccess(
        deps.db,
        success,
        settles
          ? {
              providerId: session.providerId,
              roundId: req.roundId,
              groupId: resolved.game.groupId,
              gameId: session.gameId,
              playerId: session.playerId,
              previousTransactionId: req.previousTransactionId ?? null,
              payoutAmount: amount,
              appliedMultiplier: multiplier,
              settleTransactionId: req.transactionId,
              settleReason: req.reason,
              outcome: req.game?.outcome ?? null,
              settlementData: req.game?.settlementData,
            }
          : null,
        (err) => deps.logger.error({ err, roundId: req.roundId, transactionId: req.transactionId }, 'credit recorded, but its round could not be looked up again: reconcile the round'),
      );
      if (result === 'ALREADY_SETTLED') {
        deps.logger.warn({ roundId: req.roundId, transactionId: req.transactionId }, 'round already settled: credit recorded, round keeps its first settlement');
      } else if (result === 'SETTLES_WHEN_BET_SUCCEEDS') {
        deps.logger.info({ roundId: req.roundId, transactionId: req.transactionId }, 'credit before its bet succeeded: the round opens settled by it if the bet does');
      } else if (result === 'NO_ROUND') {
        deps.logger.warn({ roundId: req.roundId, transactionId: req.transactionId }, 'credit for a round that has no open bet');
      }
    },
  });
}
