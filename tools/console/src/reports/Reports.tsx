import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { API, get, query, type ReportMeta, type ReportRow } from '../lib/api';
import { Money } from '../lib/format';
import { useQueryString } from '../lib/useQueryString';
import { MoneyChart } from '../shell/LazyChart';
import { QueryState } from '../shell/State';

/** The dimensions a report can be grouped by (any combination; every row is also per currency), and the field each fills. */
const GROUPINGS = [['day', 'Day', 'day'], ['casino', 'Casino', 'providerId'], ['studio', 'Studio', 'groupId'], ['game', 'Game', 'gameId']] as const;
type Grouping = (typeof GROUPINGS)[number][0];

/** Bets, payouts and GGR between two UTC days, grouped, per currency, with a chart by day and a CSV. */
export function Reports() {
  const [params, setParams] = useQueryString();
  const from = params.get('from') ?? undefined;
  const to = params.get('to') ?? undefined;
  const groupBy = params.get('groupBy') ?? 'day';
  // In GROUPINGS' order, whatever the address says; currency is always a column.
  const dims = GROUPINGS.filter(([k]) => groupBy.split(',').includes(k));
  const toggle = (k: Grouping, on: boolean) => {
    const next = GROUPINGS.map(([g]) => g).filter((g) => (g === k ? on : dims.some(([d]) => d === g)));
    setParams({ groupBy: next.length ? next.join(',') : 'currency' });
  };
  const [draft, setDraft] = useState({ from: from ?? '', to: to ?? '' });
  const qs = query({ from, to, groupBy, limit: 500 });
  const report = useQuery({ queryKey: ['report', qs], queryFn: () => get<ReportRow[], ReportMeta>(`/money/reports${qs}`) });
  const rows = report.data?.data ?? [];
  const currencies = [...new Set(rows.map((r) => r.currency))].sort();
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setParams(draft);
  };
  return (
    <>
      <h1>Reports</h1>
      <form className="filters card" onSubmit={apply} aria-label="Period">
        <div className="field"><label htmlFor="rp-from">From (UTC day, YYYY-MM-DD)</label><input id="rp-from" value={draft.from} placeholder="30 days ago" onChange={(e) => setDraft({ ...draft, from: e.target.value })} /></div>
        <div className="field"><label htmlFor="rp-to">To (UTC day, inclusive)</label><input id="rp-to" value={draft.to} placeholder="today" onChange={(e) => setDraft({ ...draft, to: e.target.value })} /></div>
        <fieldset className="field group-by">
          <legend>Group by (and currency)</legend>
          {GROUPINGS.map(([k, l]) => (
            <label key={k}><input type="checkbox" checked={dims.some(([d]) => d === k)} onChange={(e) => toggle(k, e.target.checked)} /> {l}</label>
          ))}
        </fieldset>
        <div className="actions">
          <button type="submit" className="primary">Show</button>
          <a href={`${API}/money/reports.csv${query({ from, to, groupBy })}`} download>Export CSV</a>
        </div>
      </form>
      <QueryState isPending={report.isPending} error={report.error} />
      {report.data && (
        <>
          {groupBy === 'day' && currencies.map((c) => (
            <MoneyChart key={c} currency={c} title={`Bets, payouts and GGR per day in ${c}`} points={rows.filter((r) => r.currency === c).map((r) => ({ label: r.day ?? '', bets: r.betSum, payouts: r.payoutSum, ggr: r.ggr }))} />
          ))}
          <table className="results">
            <thead>
              <tr>
                {dims.map(([k, l]) => <th key={k} scope="col">{l}</th>)}
                <th scope="col">Currency</th><th scope="col" className="num">Bets</th><th scope="col" className="num">Bet sum</th><th scope="col" className="num">Payouts</th><th scope="col" className="num">GGR</th>
                <th scope="col" className="num">Rounds settled</th><th scope="col" className="num">Rounds open</th><th scope="col" className="num">Players</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={i}>
                  {dims.map(([k, , field]) => <td key={k}>{String(r[field] ?? '')}</td>)}
                  <td>{r.currency}</td>
                  <td className="num">{r.bets}</td>
                  <td className="num"><Money amount={r.betSum} currency={r.currency} /></td>
                  <td className="num"><Money amount={r.payoutSum} currency={r.currency} /></td>
                  <td className="num"><Money amount={r.ggr} currency={r.currency} /></td>
                  <td className="num">{r.roundsSettled}</td>
                  <td className="num">{r.roundsOpen}</td>
                  <td className="num">{r.distinctPlayers}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              {(report.data.meta?.totals ?? []).map((t) => (
                <tr key={t.currency}>
                  {dims.length > 0 ? <><th scope="row" colSpan={dims.length}>Total</th><td>{t.currency}</td></> : <th scope="row">Total {t.currency}</th>}
                  <td className="num">{t.bets}</td><td className="num"><Money amount={t.betSum} currency={t.currency} /></td><td className="num"><Money amount={t.payoutSum} currency={t.currency} /></td><td className="num"><Money amount={t.ggr} currency={t.currency} /></td>
                  <td className="num">{t.roundsSettled}</td><td className="num">{t.roundsOpen}</td><td className="num">{t.distinctPlayers}</td>
                </tr>
              ))}
            </tfoot>
          </table>
        </>
      )}
    </>
  );
}
