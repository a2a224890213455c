import { randomInt } from 'node:crypto';
import Decimal from 'decimal.js';
import { money, type MoneyValue } from '@relay/shared';

/**
 * The demo's game: a dice roll from 1 to 100 that wins when it is at or under the chance the player
 * picked. The multiplier pays 99 % of a fair bet, truncated to cents (25 % pays 3.96x, 50 % 1.98x,
 * 75 % 1.32x). The backend rolls; the page only ever learns the result.
 */
export const CHANCES = [25, 50, 75] as const;
export type Chance = (typeof CHANCES)[number];
export type ForcedOutcome = 'WIN' | 'LOSS';

const RETURN_TO_PLAYER = money('0.99');

export function multiplierFor(chance: Chance): number {
  return RETURN_TO_PLAYER.times(100).dividedBy(chance).toDecimalPlaces(2, Decimal.ROUND_DOWN).toNumber();
}

export interface DiceResult {
  roll: number;
  won: boolean;
  multiplier: number;
  /** Total paid to the player, stake included; 0 on a loss. */
  payout: number;
  /** True when the payout was cut down to the casino's maxWin. */
  capped: boolean;
}

/**
 * Rolls (or, in tests, takes a forced outcome) and prices the result. The payout is the stake times
 * the multiplier, rounded down to cents (the game rounds, spec Limits), then capped at maxWin.
 */
export function playDice(bet: number, chance: Chance, maxWin: number, forced?: ForcedOutcome): DiceResult {
  const roll = forced === 'WIN' ? 1 : forced === 'LOSS' ? 100 : randomInt(1, 101);
  const won = roll <= chance;
  const multiplier = multiplierFor(chance);
  if (!won) return { roll, won, multiplier, payout: 0, capped: false };
  const full: MoneyValue = money(bet).times(multiplier).toDecimalPlaces(2, Decimal.ROUND_DOWN);
  const capped = full.gt(maxWin);
  return { roll, won, multiplier, payout: (capped ? money(maxWin) : full).toNumber(), capped };
}

export function isChance(value: unknown): value is Chance {
  return CHANCES.includes(value as Chance);
}
