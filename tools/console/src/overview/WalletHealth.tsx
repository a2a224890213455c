import { useQuery } from '@tanstack/react-query';
import { get, type WalletHealth } from '../lib/api';
import { QueryState } from '../shell/State';

const percent = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 2 });
const ms = (v: number | null) => (v === null ? '–' : `${v.toFixed(1)} ms`);

/**
 * Each casino's wallet as the relay sees it (the relay's records of every debit and credit
 * attempt): latency and error rate per operation, last hour and last day. Balance calls are not
 * recorded in the ledger and are not counted.
 */
export function WalletHealthPanel() {
  const health = useQuery({ queryKey: ['wallet-health'], queryFn: () => get<WalletHealth[]>('/money/wallet-health'), refetchInterval: 60_000 });
  const rows = health.data?.data ?? [];
  return (
    <section className="card wide" aria-labelledby="wallet-health-title">
      <h2 id="wallet-health-title">Casino wallet health</h2>
      <p className="muted">Debit and credit calls to each casino's wallet, from the relay's own records. Errors are the casino's failures (5xx, time-outs, no connection, unusable answers); declines (4xx, such as insufficient funds) are business answers. Balance calls are not counted.</p>
      <QueryState isPending={health.isPending} error={health.error} />
      {health.data && (rows.length === 0 ? <p>No debit or credit calls in the last day.</p> : (
        <table>
          <caption className="visually-hidden">Latency and error rate per casino, operation and window</caption>
          <thead>
            <tr>
              <th scope="col">Casino</th><th scope="col">Operation</th><th scope="col">Window</th>
              <th scope="col" className="num">Calls</th><th scope="col" className="num">Declined</th><th scope="col" className="num">Errors</th>
              <th scope="col" className="num">Error rate</th><th scope="col" className="num">p50</th><th scope="col" className="num">p99</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.providerId}/${r.operation}/${r.window}`}>
                <th scope="row">{r.providerId}</th>
                <td>{r.operation}</td>
                <td>{r.window === 'hour' ? 'last hour' : 'last day'}</td>
                <td className="num">{r.attempts}</td>
                <td className="num">{r.declined}</td>
                <td className="num">{r.casinoErrors}</td>
                <td className="num">{percent.format(r.errorRate)}</td>
                <td className="num">{ms(r.p50Ms)}</td>
                <td className="num">{ms(r.p99Ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </section>
  );
}
