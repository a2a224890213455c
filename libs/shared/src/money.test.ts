import { decimalPlaces, isValidAmount, roundBalance, toJsonNumber, toMoneyString } from './money';

describe('money', () => {
  it('When an amount has more than two decimals, then it is not valid (10.005 is refused, not rounded)', () => {
    expect(isValidAmount(10.005)).toBe(false);
    expect(isValidAmount(10.01)).toBe(true);
    expect(isValidAmount(0.1 + 0.2)).toBe(false); // 0.30000000000000004
    expect(isValidAmount(1e-7)).toBe(false);
    expect(decimalPlaces(1e-7)).toBe(7);
  });

  it('When an amount is negative, infinite or absurdly large, then it is not valid', () => {
    expect(isValidAmount(-0.01)).toBe(false);
    expect(isValidAmount(Number.POSITIVE_INFINITY)).toBe(false);
    expect(isValidAmount(Number.NaN)).toBe(false);
    expect(isValidAmount(1e20)).toBe(false);
    expect(isValidAmount(0)).toBe(true);
  });

  it('When an amount is too large for a JSON number to hold its cents, then it is not valid rather than silently a cent off', () => {
    // JSON.parse('99999999999999.99') is 99999999999999.98: that cent must not be debited.
    expect(isValidAmount(JSON.parse('99999999999999.99'))).toBe(false);
    expect(isValidAmount(1e13)).toBe(false);
    expect(isValidAmount(9999999999999.99)).toBe(true);
    expect(String(JSON.parse('9999999999999.99'))).toBe('9999999999999.99');
  });

  it('When a casino balance has many decimals, then it is rounded half-up exactly', () => {
    expect(roundBalance(2.675)?.toNumber()).toBe(2.68); // binary 2.675 is 2.67499..., the text is not
    expect(roundBalance('2.675')?.toNumber()).toBe(2.68);
    expect(roundBalance('1.005')?.toNumber()).toBe(1.01);
    expect(roundBalance('100.994999')?.toNumber()).toBe(100.99);
    expect(roundBalance(7)?.toNumber()).toBe(7);
  });

  it('When a casino balance is not a usable non-negative number, then it is refused', () => {
    for (const bad of [-1, '-0.5', 'abc', '', null, undefined, {}, [], Number.NaN, '1.2.3']) {
      expect(roundBalance(bad)).toBeNull();
    }
  });

  it('When money goes to and from NUMERIC text, then no value changes', () => {
    expect(toMoneyString(10.1)).toBe('10.10');
    expect(toJsonNumber('10.10')).toBe(10.1);
    expect(toJsonNumber(null)).toBeNull();
  });
});
