import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { API, get, query } from '../lib/api';
import { Time } from '../lib/format';
import { useQueryString } from '../lib/useQueryString';
import { QueryState } from '../shell/State';

interface AuditEntry {
  id: string;
  occurredAt: string;
  actorType: string;
  actorId: string | null;
  method: string | null;
  route: string | null;
  action: string;
  target: string | null;
  before: unknown;
  after: unknown;
}

const FILTERS = [['action', 'Action'], ['actorId', 'Actor id'], ['target', 'Target']] as const;
const LIMIT = 50;

/** Who changed what and when (read-only: the trail cannot be changed), with the hash chain's check and a CSV. */
export function AuditTrail() {
  const [params, setParams] = useQueryString();
  const filters = Object.fromEntries(FILTERS.map(([k]) => [k, params.get(k) ?? undefined]));
  const page = Number(params.get('page') ?? '1') || 1;
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(FILTERS.map(([k]) => [k, params.get(k) ?? ''])));
  const qs = query({ ...filters, page, limit: LIMIT });
  const trail = useQuery({ queryKey: ['audit', qs], queryFn: () => get<AuditEntry[], { total: number; totalPages: number }>(`/audit${qs}`) });
  const verify = useMutation({ mutationFn: () => get<{ valid: boolean }>('/audit/verify') });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setParams({ ...draft, page: undefined });
  };
  const total = trail.data?.meta?.total ?? 0;
  return (
    <>
      <h1>Audit trail</h1>
      <form className="filters card" onSubmit={apply} aria-label="Filters">
        {FILTERS.map(([k, label]) => (
          <div key={k} className="field">
            <label htmlFor={`a-${k}`}>{label}</label>
            <input id={`a-${k}`} value={draft[k] ?? ''} onChange={(e) => setDraft({ ...draft, [k]: e.target.value })} />
          </div>
        ))}
        <div className="actions">
          <button type="submit" className="primary">Filter</button>
          <a href={`${API}/audit.csv${query(filters)}`} download>Export CSV</a>
          <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>Verify the chain</button>
          {verify.data && <span role="status">{verify.data.message}</span>}
          {verify.error && <span className="error" role="alert">{verify.error.message}</span>}
        </div>
      </form>
      <QueryState isPending={trail.isPending} error={trail.error} />
      {trail.data && (
        <>
          <p><strong>{total}</strong> entries.</p>
          <table className="results">
            <thead><tr><th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Change</th></tr></thead>
            <tbody>
              {trail.data.data.map((a) => (
                <tr key={a.id}>
                  <td><Time at={a.occurredAt} /></td>
                  <td>{a.actorType}{a.actorId ? <div><code>{a.actorId}</code></div> : null}</td>
                  <td>{a.action}</td>
                  <td><code>{a.target ?? ''}</code></td>
                  <td>
                    <details>
                      <summary>before / after</summary>
                      <pre>{JSON.stringify({ before: a.before, after: a.after }, null, 2)}</pre>
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav className="pager" aria-label="Pages">
            {page > 1 && <button type="button" onClick={() => setParams({ page: String(page - 1) })}>Previous page</button>}
            <span>Page {page} of {Math.max(1, trail.data.meta?.totalPages ?? 1)}</span>
            {page * LIMIT < total && <button type="button" onClick={() => setParams({ page: String(page + 1) })}>Next page</button>}
          </nav>
        </>
      )}
    </>
  );
}
