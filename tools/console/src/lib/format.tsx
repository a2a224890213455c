/**
 * Money and time as the console shows them. Amounts arrive as JSON numbers with at most the
 * currency's decimals; Intl.NumberFormat shows them with exactly those decimals (EUR 2, JPY 0, ...).
 * Every time is UTC on screen, the reader's local time on hover.
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

const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' });

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span>—</span>;
  const d = new Date(at);
  return (
    <time dateTime={at} title={`Local: ${local.format(d)}`}>
      {d.toISOString().slice(0, 19).replace('T', ' ')} UTC
    </time>
  );
}

export function Money({ amount, currency }: { amount: number | null | undefined; currency: string }) {
  return <span className="num">{money(amount, currency)}</span>;
}

/** An id shown in monospace with a button that copies it. */
export function CopyId({ value, label }: { value: string; label?: string }) {
  return (
    <span className="copy-id">
      <code>{value}</code>
      <button type="button" className="link" aria-label={`Copy ${label ?? 'id'} ${value}`} onClick={() => void navigator.clipboard?.writeText(value)}>
        copy
      </button>
    </span>
  );
}
