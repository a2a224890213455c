import { AppError, money, type Casino, type Knex } from '@relay/shared';
import { consumeRound, lockAward, recordedCredit, type LockedAward } from '../data/awards';
import { claimOrFindTransaction, findTransaction, type ClaimOrExisting, type MovementRecord } from '../data/transactions';
import type { CashInReason } from './cash-in-reasons';

/** The cash-in reasons that play a free round (DISCONNECT_FREEBET_WIN checked too: a tightening). */
export const FREEBET_REASONS: ReadonlySet<CashInReason> = new Set<CashInReason>(['FREEBET_WIN', 'FREEBET_LOST', 'DISCONNECT_FREEBET_WIN']);

export function isManagedFreebet(casino: Casino, reason: CashInReason): boolean {
  return casino.freeRoundsMode === 'managed' && FREEBET_REASONS.has(reason);
}

/** What a managed freebet credit asks of its award. */
export interface FreebetCredit {
  providerId: string;
  playerId: string;
  gameId: number;
  currency: string;
  awardId: string | undefined;
  /** numeric text, as recorded on the transaction. */
  betAmount: string;
  isLastFreebet: boolean;
}

/**
 * The claim of a managed freebet credit (issue 35), replacing moveMoney's plain claim: ONE database
 * transaction locks the award (FOR UPDATE), runs the same claim-or-find statement, and only when it
 * claimed a new transactionId checks the award and consumes a round. So:
 * - a crash before COMMIT leaves neither the claim nor the round consumed, after it both;
 * - a refused award throws inside the transaction: the claim is rolled back, nothing is written,
 *   and the casino is never called (the 400 is thrown before moveMoney's attempt);
 * - a transactionId claimed before (a replay, a FAILED or abandoned attempt taken over, the retry
 *   route) is answered by moveMoney as always, whatever the award's state now: its round was
 *   consumed by its first claim, so a win that failed at the casino is still paid;
 * - concurrent credits for an award's last round queue on its row lock; each reads the row as the
 *   one before left it, so exactly one finds a round left.
 */
export function claimFreeRound(db: Knex, credit: FreebetCredit) {
  return async (record: MovementRecord, request: object): Promise<ClaimOrExisting> => {
    // A transactionId claimed before is answered from its record, by a read alone: a replay takes
    // no award lock and writes nothing. (One claimed after this read is found again below.)
    const known = await findTransaction(db, credit.providerId, record.transactionId);
    if (known) return { existing: known };
    return db.transaction(async (trx) => {
      const award = credit.awardId === undefined ? null : await lockAward(trx, credit.providerId, credit.awardId);
      const outcome = await claimOrFindTransaction(trx, record, request);
      if (!('claim' in outcome)) return outcome;
      const refusal = refusalOf(award, credit);
      if (refusal) throw refusal;
      await consumeRound(trx, { providerId: credit.providerId, awardId: credit.awardId as string, transactionId: record.transactionId, forfeitRest: credit.isLastFreebet });
      return outcome;
    });
  };
}

/** The first rule a fresh freebet credit breaks, or null. An award of another player reads as unknown. */
export function refusalOf(award: LockedAward | null, credit: FreebetCredit): AppError | null {
  const awardField = [{ path: 'awardId', message: 'see the error code' }];
  if (!award || award.playerId !== credit.playerId) {
    return new AppError('FREEBET_AWARD_NOT_FOUND', 'awardId names no free-round award of this casino and player', { details: awardField });
  }
  if (!award.gameIds.includes(credit.gameId) || award.currency.toUpperCase() !== credit.currency.toUpperCase()) {
    return new AppError('FREEBET_AWARD_NOT_FOR_GAME', "The award is not valid for the session's game and currency", { details: awardField });
  }
  if (award.roundsPlayed >= award.rounds) {
    return new AppError('FREEBET_AWARD_NO_ROUNDS_LEFT', 'Every round of the award has been played', { details: awardField });
  }
  if ((award.state !== 'ACTIVE' && award.state !== 'IN_PROGRESS') || !award.started || award.expired) {
    const why = !award.started ? 'not started' : award.expired ? 'expired' : award.state.toLowerCase();
    return new AppError('FREEBET_AWARD_NOT_ACTIVE', `The award is ${why}`, { details: awardField });
  }
  if (!money(credit.betAmount).eq(money(award.betValue))) {
    return new AppError('FREEBET_BET_MISMATCH', `betAmount must equal the award's bet value (${money(award.betValue).toFixed()})`, {
      details: [{ path: 'betAmount', message: "must equal the award's bet value" }],
    });
  }
  return null;
}

/**
 * A managed casino's takeover check (moveMoney's beforeTakeover): the transactionId's record must be
 * the same credit as the repeat. A freebet stays a freebet of the same award and bet value (its
 * round was consumed by its first claim, for that award), and a credit that was no freebet cannot
 * become one (it would be paid as a freebet no award was checked for, and consume nothing). A
 * record whose copy kept no reason (archived before the copy kept it) is taken over as before.
 */
export async function sameCredit(db: Knex, key: { providerId: string; transactionId: string }, repeat: { reason: CashInReason; awardId: string | null; betAmount: string }): Promise<void> {
  const recorded = await recordedCredit(db, key.providerId, key.transactionId);
  if (!recorded || recorded.reason === null) return;
  const wasFreebet = FREEBET_REASONS.has(recorded.reason as CashInReason);
  const isFreebet = FREEBET_REASONS.has(repeat.reason);
  const same = wasFreebet === isFreebet
    && (!isFreebet || (recorded.awardId === repeat.awardId && recorded.betAmount !== null && money(recorded.betAmount).eq(money(repeat.betAmount))));
  if (!same) {
    throw new AppError('Bad Request', 'transactionId was already used for another movement; each movement needs a fresh transactionId');
  }
}
