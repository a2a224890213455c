import { money, type ErrorDetail } from '@relay/shared';

/**
 * A casino's bet limits for one game in one currency (spec: currency config fields). Amounts are
 * compared in exact decimal arithmetic: they are money, and 0.1 + 0.2 must not decide a limit.
 */
export interface CurrencyConfigInput {
  minBet: number;
  maxBet: number;
  defaultBet: number;
  betSuggestions: number[];
  maxWin: number;
  minAutoCashout: number | null;
  maxAutoCashout: number | null;
  defaultAutoCashout: number | null;
  isRoundable: boolean;
  isDefault: boolean;
}

/**
 * The ordering rules of docs/api/admin.json. Decimals and signs of each amount are the route schema's
 * (isValidAmount); these are the rules between fields.
 */
export function currencyConfigProblems(c: CurrencyConfigInput): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const min = money(c.minBet);
  const max = money(c.maxBet);
  const def = money(c.defaultBet);
  if (min.gt(def)) problems.push({ path: 'minBet', message: 'minBet must not exceed defaultBet' });
  if (def.gt(max)) problems.push({ path: 'defaultBet', message: 'defaultBet must not exceed maxBet' });
  if (min.gt(max)) problems.push({ path: 'maxBet', message: 'maxBet must not be below minBet' });
  c.betSuggestions.forEach((s, i) => {
    const amount = money(s);
    if (amount.lt(min) || amount.gt(max)) problems.push({ path: `betSuggestions.${i}`, message: 'a bet suggestion must lie within [minBet, maxBet]' });
  });
  // Auto-cashout is optional (only games with the feature); the order holds between the ones given.
  const auto: [string, number | null][] = [
    ['minAutoCashout', c.minAutoCashout],
    ['defaultAutoCashout', c.defaultAutoCashout],
    ['maxAutoCashout', c.maxAutoCashout],
  ];
  for (let i = 0; i < auto.length; i++) {
    for (let j = i + 1; j < auto.length; j++) {
      const [lowName, low] = auto[i];
      const [highName, high] = auto[j];
      if (low !== null && high !== null && money(low).gt(money(high))) {
        problems.push({ path: highName, message: `${lowName} must not exceed ${highName}` });
      }
    }
  }
  return problems;
}
