import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ApiError, get, put, type CasinoThresholds } from '../lib/api';
import { Time } from '../lib/format';
import { money } from '../lib/money';
import { QueryState } from '../shell/State';

/** '*' is "every other currency": shown in words, sorted last. */
const OTHER = '*';
const currencyLabel = (c: string) => (c === OTHER ? 'any other currency' : c);
const byCurrency = (entries: [string, number][]) => [...entries].sort(([a], [b]) => (a === OTHER ? 1 : b === OTHER ? -1 : a.localeCompare(b)));
const amountText = (c: string, n: number) => (c === OTHER ? new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(n) : money(n, c));

/**
 * Platform admins: each casino's win-flag thresholds, one row per casino and currency, and a form
 * to change them. The API validates (and audits) every change; its errors are shown by the field
 * they name. A change applies at once to every win, past ones included (flags are derived when read).
 */
export function FlagThresholds() {
  const list = useQuery({ queryKey: ['thresholds'], queryFn: () => get<CasinoThresholds[]>('/money/flag-thresholds') });
  const [editing, setEditing] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const casinos = list.data?.data ?? [];
  const current = casinos.find((c) => c.providerId === editing);
  return (
    <>
      <h1>Flag thresholds</h1>
      <p className="muted">
        A paid win is flagged for review when its payout is above its casino&apos;s threshold for the currency, or its multiplier above the
        casino&apos;s multiplier threshold. A casino without its own uses the platform defaults. A change applies at once, to past wins too,
        and is recorded in the audit trail. <Link href="/flagged-wins">Flagged wins</Link>
      </p>
      {saved && <p role="status" className="card">Saved the thresholds of {saved}.</p>}
      <QueryState isPending={list.isPending} error={list.error} />
      {current && (
        <ThresholdsForm
          key={current.providerId}
          casino={current}
          onDone={(ok) => {
            setEditing(null);
            if (ok) setSaved(current.providerId);
          }}
        />
      )}
      {list.data && (
        <table className="results" aria-label="Thresholds per casino and currency">
          <thead>
            <tr><th scope="col">Casino</th><th scope="col">Currency</th><th scope="col" className="num">Payout over</th><th scope="col" className="num">Multiplier over</th><th scope="col">Set by</th><th scope="col">Change</th></tr>
          </thead>
          <tbody>
            {casinos.map((c) => {
              const rows = byCurrency(Object.entries(c.payoutOver));
              return rows.map(([currency, amount], i) => (
                <tr key={`${c.providerId}/${currency}`} data-testid="threshold-row" data-casino={c.providerId}>
                  {i === 0 && <th scope="rowgroup" rowSpan={rows.length}>{c.name} <span className="muted">({c.providerId})</span></th>}
                  <td>{currencyLabel(currency)}</td>
                  <td className="num">{amountText(currency, amount)}</td>
                  {i === 0 && (
                    <>
                      <td className="num" rowSpan={rows.length}>×{c.multiplierOver}</td>
                      <td rowSpan={rows.length}>{c.isDefault ? <span className="muted">platform defaults</span> : <>{c.updatedBy} <Time at={c.updatedAt} /></>}</td>
                      <td rowSpan={rows.length}>
                        <button type="button" onClick={() => { setSaved(null); setEditing(c.providerId); }} aria-label={`Change the thresholds of ${c.providerId}`}>Change</button>
                      </td>
                    </>
                  )}
                </tr>
              ));
            })}
          </tbody>
        </table>
      )}
    </>
  );
}

interface Line {
  currency: string;
  amount: string;
}

/** The edit form: the multiplier, then one line per currency ('*' for any other). */
function ThresholdsForm({ casino, onDone }: { casino: CasinoThresholds; onDone: (saved: boolean) => void }) {
  const client = useQueryClient();
  const [multiplier, setMultiplier] = useState(String(casino.multiplierOver));
  const [lines, setLines] = useState<Line[]>(() => byCurrency(Object.entries(casino.payoutOver)).map(([currency, amount]) => ({ currency, amount: String(amount) })));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [summary, setSummary] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: unknown) => put(`/money/flag-thresholds/${encodeURIComponent(casino.providerId)}`, body),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['thresholds'] });
      await client.invalidateQueries({ queryKey: ['wins'] });
      onDone(true);
    },
  });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setErrors({});
    setSummary(null);
    // Only what cannot travel as JSON numbers is caught here; every other rule is the API's.
    const local: Record<string, string> = {};
    const asNumber = (text: string, field: string) => {
      if (!/^\s*-?\d+(\.\d+)?\s*$/.test(text)) local[field] = 'must be a number';
      return Number(text);
    };
    const body = {
      multiplierOver: asNumber(multiplier, 'multiplierOver'),
      payoutOver: Object.fromEntries(lines.map((l, i) => {
        const code = l.currency.trim().toUpperCase();
        if (lines.findIndex((o) => o.currency.trim().toUpperCase() === code) !== i) local[`currency.${i}`] = 'is named twice';
        return [code, asNumber(l.amount, `payoutOver.${code}`)];
      })),
    };
    if (Object.keys(local).length > 0) {
      setErrors(local);
      setSummary('Some values need fixing');
      return;
    }
    try {
      await save.mutateAsync(body);
    } catch (err) {
      if (err instanceof ApiError) {
        setErrors(Object.fromEntries(err.details.map((d) => [d.path, d.message])));
        setSummary(err.message);
      } else {
        setSummary('Could not save; try again');
      }
    }
  };

  const fieldError = (key: string, id: string) => (errors[key] ? <span id={id} className="error">{errors[key]}</span> : null);
  return (
    <form className="card thresholds-form" onSubmit={(e) => void submit(e)} aria-labelledby="thresholds-title" noValidate>
      <h2 id="thresholds-title">Thresholds of {casino.name} ({casino.providerId})</h2>
      {summary && <p className="error" role="alert">{summary}</p>}
      <div className="field">
        <label htmlFor="t-multiplier">Multiplier over</label>
        <input id="t-multiplier" inputMode="decimal" value={multiplier} onChange={(e) => setMultiplier(e.target.value)}
          aria-invalid={errors.multiplierOver ? true : undefined} aria-describedby={errors.multiplierOver ? 't-multiplier-error' : undefined} />
        {fieldError('multiplierOver', 't-multiplier-error')}
      </div>
      <fieldset>
        <legend>Payout over, per currency (* for any other currency)</legend>
        {errors.payoutOver && <p className="error">{errors.payoutOver}</p>}
        {lines.map((l, i) => {
          const amountKey = `payoutOver.${l.currency.trim().toUpperCase()}`;
          const amountError = errors[amountKey] ?? errors[`${amountKey}.key`];
          return (
            <div key={i} className="threshold-line">
              <div className="field">
                <label htmlFor={`t-currency-${i}`}>Currency {i + 1}</label>
                <input id={`t-currency-${i}`} value={l.currency} size={6} onChange={(e) => setLines(lines.map((o, j) => (j === i ? { ...o, currency: e.target.value } : o)))}
                  aria-invalid={errors[`currency.${i}`] ? true : undefined} aria-describedby={errors[`currency.${i}`] ? `t-currency-${i}-error` : undefined} />
                {fieldError(`currency.${i}`, `t-currency-${i}-error`)}
              </div>
              <div className="field">
                <label htmlFor={`t-amount-${i}`}>Payout over {i + 1}</label>
                <input id={`t-amount-${i}`} inputMode="decimal" value={l.amount} onChange={(e) => setLines(lines.map((o, j) => (j === i ? { ...o, amount: e.target.value } : o)))}
                  aria-invalid={amountError ? true : undefined} aria-describedby={amountError ? `t-amount-${i}-error` : undefined} />
                {amountError && <span id={`t-amount-${i}-error`} className="error">{amountError}</span>}
              </div>
              <button type="button" disabled={lines.length === 1} onClick={() => setLines(lines.filter((_o, j) => j !== i))} aria-label={`Remove currency ${i + 1}`}>Remove</button>
            </div>
          );
        })}
        <button type="button" onClick={() => setLines([...lines, { currency: '', amount: '' }])}>Add a currency</button>
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>Save thresholds</button>
        <button type="button" onClick={() => onDone(false)}>Cancel</button>
      </div>
    </form>
  );
}
