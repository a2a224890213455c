import { money } from './money';

/** The console's money formatting, run by jest in Node (the same ICU data as Chromium). */
describe('money', () => {
  it('When an amount is in a currency with 2, 0 or 3 decimals, then it shows exactly that many', () => {
    expect(money(1234.5, 'EUR').replace(/\s/g, ' ')).toBe('EUR 1,234.50');
    expect(money(0.1, 'EUR').replace(/\s/g, ' ')).toBe('EUR 0.10');
    expect(money(1500, 'JPY').replace(/\s/g, ' ')).toBe('JPY 1,500');
    expect(money(1.234, 'BHD').replace(/\s/g, ' ')).toBe('BHD 1.234');
  });

  it('When an amount is negative (a GGR loss), then the sign is kept', () => {
    expect(money(-11, 'EUR').replace(/\s/g, ' ')).toBe('-EUR 11.00');
  });

  it('When the currency is not an ISO code, then the amount shows with 2 decimals and the code as given', () => {
    expect(money(12.3, 'FUN').replace(/\s/g, ' ')).toBe('FUN 12.30'); // any three letters is a well-formed ISO code to Intl
    expect(money(12.3, 'mBTC')).toBe('mBTC 12.30');
  });

  it('When there is no amount, then a dash shows, never 0', () => {
    expect(money(null, 'EUR')).toBe('—');
    expect(money(undefined, 'EUR')).toBe('—');
  });
});
