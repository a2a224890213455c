import Decimal from 'decimal.js';

/**
 * Exact money arithmetic. Amounts arrive as JSON numbers; their shortest decimal text (what
 * JSON.stringify prints) is the value the game meant, so decimals are counted on that text and
 * never on binary floating point.
 */
const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -30, toExpPos: 30 });
export type MoneyValue = InstanceType<typeof Money>;

/**
 * Amounts and balances travel as JSON numbers (doubles), which hold every cent exactly only below
 * 2^46 (about 7.04e13): above it two cents can share a double, and 99999999999999.99 arrives as
 * ...98. Every amount and balance must be below this round limit under that bound, or it is refused.
 */
export const MAX_AMOUNT = new Money('1e13');

/** Decimal places of a finite number as the game wrote it (10.005 has 3, 1e-7 has 7). */
export function decimalPlaces(value: number): number {
  return new Money(String(value)).decimalPlaces();
}

/** True for a finite, non-negative number with at most two decimals, below MAX_AMOUNT. */
export function isValidAmount(value: number): boolean {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return false;
  const d = new Money(String(value));
  return d.decimalPlaces() <= 2 && d.lt(MAX_AMOUNT);
}

/** Parses a casino balance (number or numeric string, any decimals) and rounds half-up to cents. */
export function roundBalance(input: unknown): MoneyValue | null {
  let d: MoneyValue;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return null;
    d = new Money(String(input));
  } else if (typeof input === 'string' && /^\s*-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(input)) {
    d = new Money(input.trim());
  } else {
    return null;
  }
  if (d.isNeg() && !d.isZero()) return null;
  return d.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
}

/** Canonical two-decimal text for NUMERIC columns and signatures. */
export function toMoneyString(value: number | string | MoneyValue): string {
  return new Money(value instanceof Money ? value : String(value)).toFixed(2);
}

/** NUMERIC text from PostgreSQL (or a Decimal) back to a JSON number at the edge. */
export function toJsonNumber(value: string | number | MoneyValue | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  return new Money(value instanceof Money ? value : String(value)).toNumber();
}

export function money(value: number | string): MoneyValue {
  return new Money(String(value));
}
