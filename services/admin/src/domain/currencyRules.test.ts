import { currencyConfigProblems, type CurrencyConfigInput } from './currencyRules';

const valid: CurrencyConfigInput = {
  minBet: 0.1,
  maxBet: 100,
  defaultBet: 1,
  betSuggestions: [0.1, 100],
  maxWin: 1000,
  minAutoCashout: 1.01,
  maxAutoCashout: 100,
  defaultAutoCashout: 2,
  isRoundable: false,
  isDefault: false,
};

describe('currencyConfigProblems', () => {
  test('When limits are in order and suggestions lie on the bounds, then there is no problem', () => {
    expect(currencyConfigProblems(valid)).toEqual([]);
    expect(currencyConfigProblems({ ...valid, minBet: 0, defaultBet: 0, maxBet: 0, betSuggestions: [0] })).toEqual([]);
  });

  test('When amounts are compared, then exact decimals decide (0.3 is within [0.1 + 0.2, ...])', () => {
    expect(currencyConfigProblems({ ...valid, minBet: 0.3, defaultBet: 0.3, betSuggestions: [0.3] })).toEqual([]);
  });

  test('When min exceeds max, then every broken relation is named', () => {
    const paths = currencyConfigProblems({ ...valid, minBet: 200 }).map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['minBet', 'maxBet', 'betSuggestions.0', 'betSuggestions.1']));
  });

  test('When only some auto-cashout values are given, then the order holds between those given', () => {
    expect(currencyConfigProblems({ ...valid, defaultAutoCashout: null, minAutoCashout: 5, maxAutoCashout: 2 })).toEqual([
      { path: 'maxAutoCashout', message: expect.any(String) },
    ]);
    expect(currencyConfigProblems({ ...valid, minAutoCashout: null, maxAutoCashout: null, defaultAutoCashout: 7 })).toEqual([]);
  });
});
