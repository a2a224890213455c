/**
 * Amounts arrive as JSON numbers with at most the currency's decimals; Intl.NumberFormat shows
 * them with exactly those decimals (EUR 2, JPY 0, BHD 3), never rounding a cent away.
 */
const moneyFormats = new Map<string, Intl.NumberFormat>();

export function money(amount: number | null | undefined, currency: string): string {
  if (amount === null || amount === undefined) return '—';
  let f = moneyFormats.get(currency);
  if (!f) {
    try {
      f = new Intl.NumberFormat('en-GB', { style: 'currency', currency, currencyDisplay: 'code' });
    } catch {
      // Not an ISO 4217 code (a casino's own token currency): two decimals and the code as given.
      const plain = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
      f = { format: (n: number) => `${currency} ${plain.format(n)}` } as Intl.NumberFormat;
    }
    moneyFormats.set(currency, f);
  }
  return f.format(amount);
}

