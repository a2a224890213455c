import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { API, get, query, type ReportMeta, type ReportRow } from '../lib/api';
import { Money } from '../lib/format';
import { useQueryString } from '../lib/useQueryString';
import { MoneyChart } from '../shell/LazyChart';
import { QueryState } from '../shell/State';

const GROUPINGS = [['day', 'Day'], ['casino', 'Casino'], ['studio', 'Studio'], ['game', 'Game']] as const;

/** Bets, payouts and GGR between two UTC days, grouped, per currency, with a chart by day and a CSV. */
export function Reports() {
  const [params, setParams] = useQueryString();
  const from = params.get('from') ?? undefined;
  const to = params.get('to') ?? undefined;
  const groupBy = params.get('groupBy') ?? 'day';
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
        <div className="field">
          <label htmlFor="rp-group">Group by</label>
          <select id="rp-group" value={groupBy} onChange={(e) => setParams({ groupBy: e.target.value })}>
            {GROUPINGS.map(([k, l]) => <option key={k} value={k}>{l}</option>)}
          </select>
        </div>
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
              <tr><th scope="col">{GROUPINGS.find(([k]) => k === groupBy)?.[1]}</th><th scope="col">Currency</th><th scope="col" className="num">Bets</th><th scope="col" className="num">Bet sum</th><th scope="col" className="num">Payouts</th><th scope="col" className="num">GGR</th><th scope="col" className="num">Players</th></tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={i}>
                  <td>{String((r as unknown as Record<string, unknown>)[groupBy === 'casino' ? 'providerId' : groupBy === 'studio' ? 'groupId' : groupBy === 'game' ? 'gameId' : 'day'] ?? '')}</td>
                  <td>{r.currency}</td>
                  <td className="num">{r.bets}</td>
                  <td className="num"><Money amount={r.betSum} currency={r.currency} /></td>
                  <td className="num"><Money amount={r.payoutSum} currency={r.currency} /></td>
                  <td className="num"><Money amount={r.ggr} currency={r.currency} /></td>
                  <td className="num">{r.distinctPlayers}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              {(report.data.meta?.totals ?? []).map((t) => (
                <tr key={t.currency}><th scope="row">Total</th><td>{t.currency}</td><td className="num">{t.bets}</td><td className="num"><Money amount={t.betSum} currency={t.currency} /></td><td className="num"><Money amount={t.payoutSum} currency={t.currency} /></td><td className="num"><Money amount={t.ggr} currency={t.currency} /></td><td className="num">{t.distinctPlayers}</td></tr>
              ))}
            </tfoot>
          </table>
        </>
      )}
    </>
  );
}
