import { randomUUID } from 'node:crypto';
import { isValidAmount, money, type Logger } from '@relay/shared';
import { playDice, type Chance, type ForcedOutcome } from './dice';
import { RelayError, type Account, type CashOutBody, type RelayClient, type RelaySession } from './relay';
import type { Settlements } from './settlements';

/**
 * One round of the demo game, as a game backend plays it against the relay: check the casino's bet
 * limits, debit the stake (cash-out), roll, credit the result with the reason that settles the bet
 * (NORMAL_WIN with the multiplier, or BET_LOST with 0), then tell the casino the round ended.
 */
export interface PlayDeps {
  relay: RelayClient;
  settlements: Settlements;
  gameId: number;
  logger: Logger;
}

export interface Bet {
  amount: number;
  chance: Chance;
  forced?: ForcedOutcome;
}

export interface RoundResult {
  roundId: string;
  currency: string;
  betAmount: number;
  chance: Chance;
  roll: number;
  won: boolean;
  multiplier: number;
  payout: number;
  capped: boolean;
  /** Balance after the settlement; after the bet when the settlement is still owed. */
  balance: number;
  /** False when the credit failed for now and is being retried. */
  settled: boolean;
  roundEnded: boolean;
}

/** A failure the page shows the player: a stable code and a sentence. */
export class GameError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'GameError';
  }
}

const CASH_OUT_DELAYS_MS = [500, 1500];

export async function playRound(deps: PlayDeps, session: RelaySession, bet: Bet): Promise<RoundResult> {
  const { relay, gameId } = deps;
  const limits = await relay.currencyConfig(session.providerId, gameId, session.currency);
  if (!limits) throw new GameError(409, 'NO_BET_LIMITS', `This casino has no bet limits for ${session.currency}: ask the platform team to configure them.`);
  if (!isValidAmount(bet.amount) || bet.amount <= 0) throw new GameError(400, 'INVALID_BET', 'The stake must be a positive amount with at most 2 decimals.');
  if (money(bet.amount).lt(limits.minBet) || money(bet.amount).gt(limits.maxBet)) {
    throw new GameError(400, 'BET_OUT_OF_RANGE', `The stake must be between ${limits.minBet} and ${limits.maxBet} ${session.currency}.`);
  }

  const roundId = `dice-${randomUUID()}`;
  const betTransactionId = `${roundId}-bet`;
  const debit: CashOutBody = {
    sessionId: session.sessionId,
    gameId,
    currency: session.currency,
    roundId,
    transactionId: betTransactionId,
    amount: bet.amount,
    game: { gameData: { game: 'dice', chance: bet.chance } },
  };
  const afterBet = await cashOut(deps, debit);

  const dice = playDice(bet.amount, bet.chance, limits.maxWin, bet.forced);
  const afterSettle = await deps.settlements.settle({
    sessionId: session.sessionId,
    gameId,
    currency: session.currency,
    roundId,
    transactionId: `${roundId}-settle`,
    previousTransactionId: betTransactionId,
    betAmount: bet.amount,
    amount: dice.payout,
    ...(dice.won ? { reason: 'NORMAL_WIN', appliedMultiplier: dice.multiplier } : { reason: 'BET_LOST', appliedMultiplier: 0 }),
    game: { outcome: dice.won ? 'WIN' : 'LOSS', settlementData: { roll: dice.roll, chance: bet.chance, capped: dice.capped } },
  });

  // Each bet is its own round here, so the round ends with its one settlement (spec, Events 1).
  let roundEnded = false;
  if (afterSettle) {
    try {
      await relay.roundEnded(roundId, [session.providerId]);
      roundEnded = true;
    } catch (err) {
      deps.logger.warn({ roundId, code: err instanceof RelayError ? err.code : undefined }, 'round-ended notification failed');
    }
  }

  return {
    roundId,
    currency: session.currency,
    betAmount: bet.amount,
    chance: bet.chance,
    roll: dice.roll,
    won: dice.won,
    multiplier: dice.multiplier,
    payout: dice.payout,
    capped: dice.capped,
    balance: (afterSettle ?? afterBet).balance,
    settled: afterSettle !== null,
    roundEnded,
  };
}

/**
 * The debit, repeated with the same transactionId while its outcome is unknown (no answer, 408, or
 * still in flight): the relay and the casino make the repeat safe, and it tells us whether the
 * stake was taken. Only then may the round be played.
 */
async function cashOut(deps: PlayDeps, body: CashOutBody): Promise<Account> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.relay.cashOut(body);
    } catch (err) {
      if (!(err instanceof RelayError)) throw err;
      if (err.outcomeUnknown && attempt < CASH_OUT_DELAYS_MS.length) {
        await new Promise((r) => setTimeout(r, CASH_OUT_DELAYS_MS[attempt]));
        continue;
      }
      if (err.outcomeUnknown) deps.settlements.resolveUnknownBet(body);
      throw betRefused(err, body);
    }
  }
}

function betRefused(err: RelayError, body: CashOutBody): GameError {
  if (err.code === 'FUND_WITHDRAW_FAILED') return new GameError(400, 'INSUFFICIENT_FUNDS', 'The casino refused the bet: not enough funds.');
  if (err.code === 'SESSION_EXPIRED' || err.code === 'AUTHENTICATION_TOKEN_EXPIRED') {
    return new GameError(403, err.code, 'Your session has ended: go back to the casino and launch the game again.');
  }
  if (err.outcomeUnknown) {
    return new GameError(504, 'BET_UNCONFIRMED', `The casino did not confirm the bet (round ${body.roundId}); if it was taken, it will be refunded.`);
  }
  return new GameError(502, err.code, 'The casino could not take the bet; nothing was played.');
}
