import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { API, get, post, query, storyPath, type QueueMeta, type ReconciliationItem } from '../lib/api';
import { Money, Time } from '../lib/format';
import { useQueryString } from '../lib/useQueryString';
import { Decide } from '../shell/Decide';
import { QueryState } from '../shell/State';

const KINDS = ['PENDING_ABANDONED', 'CREDIT_OWED', 'ROUND_OPEN', 'DEBIT_UNCLEAR'];
const STATES = ['OPEN', 'ACKNOWLEDGED', 'RESOLVED'];

/** What needs a person, oldest first: acknowledge (someone is on it) or resolve, each with a note. */
export function Reconciliation() {
  const client = useQueryClient();
  const [params, setParams] = useQueryString();
  const kind = params.get('kind') ?? undefined;
  const state = params.get('state') ?? undefined;
  const page = Number(params.get('page') ?? '1') || 1;
  const qs = query({ kind, state, page, limit: 50 });
  const items = useQuery({ queryKey: ['queue', qs], queryFn: () => get<ReconciliationItem[], QueueMeta>(`/money/reconciliation/items${qs}`) });
  const decide = useMutation({
    mutationFn: ({ item, action, note }: { item: ReconciliationItem; action: string; note: string }) =>
      post(`/money/reconciliation/items/${item.kind}/${encodeURIComponent(item.providerId)}/${encodeURIComponent(item.recordId)}/${action}`, { note }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['queue'] }),
  });
  const total = items.data?.meta?.total ?? 0;

  return (
    <>
      <h1>Reconciliation queue</h1>
      <div className="filters card">
        <div className="field">
          <label htmlFor="r-kind">Kind</label>
          <select id="r-kind" value={kind ?? ''} onChange={(e) => setParams({ kind: e.target.value, page: undefined })}>
            <option value="">any</option>
            {KINDS.map((k) => <option key={k}>{k}</option>)}
          </select>
        </div>
        <div className="field">
          <label htmlFor="r-state">State</label>
          <select id="r-state" value={state ?? ''} onChange={(e) => setParams({ state: e.target.value, page: undefined })}>
            <option value="">any</option>
            {STATES.map((k) => <option key={k}>{k}</option>)}
          </select>
        </div>
        <div className="actions"><a href={`${API}/money/reconciliation/items.csv${query({ kind, state })}`} download>Export CSV</a></div>
      </div>
      <QueryState isPending={items.isPending} error={items.error} />
      {items.data && (
        <>
          <p>
            <strong>{total}</strong> items. {(items.data.meta?.counts ?? []).map((c) => <span key={c.kind} className="pill">{c.kind}: {c.count}</span>)}
          </p>
          {items.data.data.length === 0 ? <p>Nothing to do.</p> : (
            <table className="results">
              <thead><tr><th scope="col">Since</th><th scope="col">Kind</th><th scope="col">State</th><th scope="col">Casino</th><th scope="col">Round</th><th scope="col" className="num">Amount</th><th scope="col">What to do</th><th scope="col">Decision</th></tr></thead>
              <tbody>
                {items.data.data.map((i) => (
                  <tr key={`${i.kind}/${i.providerId}/${i.recordId}`} data-testid="queue-item">
                    <td><Time at={i.since} /></td>
                    <td>{i.kind}</td>
                    <td>{i.state}{i.note ? <div className="muted">“{i.note}” {i.decidedBy ? `by ${i.decidedBy}` : ''}</div> : null}</td>
                    <td>{i.providerId}</td>
                    <td><Link href={storyPath(i.providerId, i.roundId)}>{i.roundId}</Link></td>
                    <td className="num"><Money amount={i.amount} currency={i.currency} /></td>
                    <td>{i.suggestedAction}</td>
                    <td>
                      {i.state !== 'RESOLVED' && (
                        <Decide
                          id={`${i.kind}-${i.recordId}`}
                          actions={[...(i.state === 'OPEN' ? [{ key: 'acknowledge', label: 'Acknowledge' }] : []), { key: 'resolve', label: 'Resolve' }]}
                          onDecide={(action, note) => decide.mutateAsync({ item: i, action, note })}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <nav className="pager" aria-label="Pages">
            {page > 1 && <button type="button" onClick={() => setParams({ page: String(page - 1) })}>Previous page</button>}
            <span>Page {page} of {Math.max(1, Math.ceil(total / 50))}</span>
            {page * 50 < total && <button type="button" onClick={() => setParams({ page: String(page + 1) })}>Next page</button>}
          </nav>
        </>
      )}
    </>
  );
}
