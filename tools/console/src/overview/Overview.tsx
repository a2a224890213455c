import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { get, query, type FlaggedWin, type QueueMeta, type ReconciliationItem, type ReportMeta, type ReportRow, type SessionInfo } from '../lib/api';
import { Money } from '../lib/format';
import { MoneyChart } from '../shell/LazyChart';
import { QueryState } from '../shell/State';
import { WalletHealthPanel } from './WalletHealth';

const todayUtc = () => new Date().toISOString().slice(0, 10);

/** Bets, payouts and GGR per currency: today and the last 30 days (UTC days). */
function Totals({ title, rows }: { title: string; rows: ReportRow[] }) {
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      {rows.length === 0 ? <p>No bets.</p> : (
        <table>
          <thead><tr><th scope="col">Currency</th><th scope="col" className="num">Bets</th><th scope="col" className="num">Bet sum</th><th scope="col" className="num">Payouts</th><th scope="col" className="num">GGR</th></tr></thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.currency}>
                <td>{r.currency}</td>
                <td className="num">{r.bets}</td>
                <td className="num"><Money amount={r.betSum} currency={r.currency} /></td>
                <td className="num"><Money amount={r.payoutSum} currency={r.currency} /></td>
                <td className="num"><Money amount={r.ggr} currency={r.currency} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function Overview({ session }: { session: SessionInfo }) {
  const today = todayUtc();
  const day = useQuery({ queryKey: ['report', 'today', today], queryFn: () => get<ReportRow[], ReportMeta>(`/money/reports${query({ from: today, to: today, groupBy: 'currency' })}`) });
  const month = useQuery({ queryKey: ['report', '30d', today], queryFn: () => get<ReportRow[], ReportMeta>(`/money/reports${query({ to: today, groupBy: 'day', limit: 500 })}`) });
  const queue = useQuery({ queryKey: ['queue', 'overview'], queryFn: () => get<ReconciliationItem[], QueueMeta>(`/money/reconciliation/items${query({ state: 'OPEN', limit: 1 })}`) });
  const wins = useQuery({ queryKey: ['wins', 'overview'], queryFn: () => get<FlaggedWin[], { total: number }>(`/money/flagged-wins${query({ state: 'FLAGGED', limit: 5 })}`) });

  const currencies = [...new Set((month.data?.data ?? []).map((r) => r.currency))].sort();
  return (
    <>
      <h1>Overview</h1>
      <p className="muted">Signed in as {session.account?.displayName ?? session.actorType}. Days are UTC days.</p>
      <div className="grid">
        {day.data ? <Totals title={`Today (${today})`} rows={day.data.meta?.totals ?? []} /> : <section className="card"><h2>Today</h2><QueryState isPending={day.isPending} error={day.error} /></section>}
        {month.data ? <Totals title="Last 30 days" rows={month.data.meta?.totals ?? []} /> : <section className="card"><h2>Last 30 days</h2><QueryState isPending={month.isPending} error={month.error} /></section>}
        <section className="card" aria-label="Open reconciliation items">
          <h2>Open reconciliation items</h2>
          <QueryState isPending={queue.isPending} error={queue.error} />
          {queue.data && (
            <>
              <ul className="counts">
                {(queue.data.meta?.counts ?? []).map((c) => <li key={c.kind}><Link href={`/reconciliation?state=OPEN&kind=${c.kind}`}>{c.kind}</Link>: <strong>{c.count}</strong></li>)}
              </ul>
              <p><Link href="/reconciliation?state=OPEN">{queue.data.meta?.total ?? 0} open in all</Link></p>
            </>
          )}
        </section>
        <section className="card" aria-label="Flagged wins to review">
          <h2>Flagged wins to review</h2>
          <QueryState isPending={wins.isPending} error={wins.error} />
          {wins.data && (
            <>
              <ul>{wins.data.data.map((w) => <li key={`${w.providerId}/${w.transactionId}`}><Money amount={w.amount} currency={w.currency} /> · {w.providerId} · player {w.playerId}</li>)}</ul>
              <p><Link href="/flagged-wins?state=FLAGGED">{wins.data.meta?.total ?? 0} to review</Link></p>
            </>
          )}
        </section>
      </div>
      <WalletHealthPanel />
      {currencies.map((c) => (
        <MoneyChart
          key={c}
          currency={c}
          title={`Last 30 days in ${c}: bets, payouts and GGR per day`}
          points={(month.data?.data ?? []).filter((r) => r.currency === c).map((r) => ({ label: r.day ?? '', bets: r.betSum, payouts: r.payoutSum, ggr: r.ggr }))}
        />
      ))}
    </>
  );
}
