import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { API, get, post, query, storyPath, type FlaggedWin } from '../lib/api';
import { Money, Time } from '../lib/format';
import { useQueryString } from '../lib/useQueryString';
import { Decide } from '../shell/Decide';
import { QueryState } from '../shell/State';

/** Wins over the casino's thresholds (the last 30 days unless a period is named), each reviewed with a note. */
/** `thresholds`: the signed-in person is a platform admin, who sets each casino's flag thresholds. */
export function FlaggedWins({ thresholds = false }: { thresholds?: boolean }) {
  const client = useQueryClient();
  const [params, setParams] = useQueryString();
  const state = params.get('state') ?? undefined;
  const page = Number(params.get('page') ?? '1') || 1;
  const qs = query({ state, page, limit: 50 });
  const wins = useQuery({ queryKey: ['wins', qs], queryFn: () => get<FlaggedWin[], { total: number }>(`/money/flagged-wins${qs}`) });
  const review = useMutation({
    mutationFn: ({ w, note }: { w: FlaggedWin; note: string }) => post(`/money/flagged-wins/${encodeURIComponent(w.providerId)}/${encodeURIComponent(w.transactionId)}/review`, { note }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['wins'] }),
  });
  const total = wins.data?.meta?.total ?? 0;
  return (
    <>
      <h1>Flagged wins</h1>
      {thresholds && <p>What counts as a flagged win for each casino: <Link href="/flag-thresholds">Flag thresholds</Link>.</p>}
      <div className="filters card">
        <div className="field">
          <label htmlFor="w-state">State</label>
          <select id="w-state" value={state ?? ''} onChange={(e) => setParams({ state: e.target.value, page: undefined })}>
            <option value="">any</option>
            <option>FLAGGED</option>
            <option>REVIEWED</option>
          </select>
        </div>
        <div className="actions"><a href={`${API}/money/flagged-wins.csv${query({ state })}`} download>Export CSV</a></div>
      </div>
      <QueryState isPending={wins.isPending} error={wins.error} />
      {wins.data && (
        <>
          <p><strong>{total}</strong> wins.</p>
          {wins.data.data.length === 0 ? <p>No flagged wins.</p> : (
            <table className="results">
              <thead><tr><th scope="col">Time</th><th scope="col">Casino</th><th scope="col">Player</th><th scope="col">Round</th><th scope="col" className="num">Win</th><th scope="col">Why</th><th scope="col">Review</th></tr></thead>
              <tbody>
                {wins.data.data.map((w) => (
                  <tr key={`${w.providerId}/${w.transactionId}`}>
                    <td><Time at={w.createdAt} /></td>
                    <td>{w.providerId}</td>
                    <td>{w.playerId}</td>
                    <td><Link href={storyPath(w.providerId, w.roundId)}>{w.roundId}</Link></td>
                    <td className="num"><Money amount={w.amount} currency={w.currency} />{w.appliedMultiplier !== null ? ` ×${w.appliedMultiplier}` : ''}</td>
                    <td>{Array.isArray(w.flaggedFor) ? w.flaggedFor.join(', ') : w.flaggedFor}</td>
                    <td>
                      {w.state === 'REVIEWED'
                        ? <span>“{w.reviewNote}” by {w.reviewedBy} <Time at={w.reviewedAt} /></span>
                        : <Decide id={w.transactionId} actions={[{ key: 'review', label: 'Mark reviewed' }]} onDecide={(_a, note) => review.mutateAsync({ w, note })} />}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <nav className="pager" aria-label="Pages">
            {page > 1 && <button type="button" onClick={() => setParams({ page: String(page - 1) })}>Previous page</button>}
            {page * 50 < total && <button type="button" onClick={() => setParams({ page: String(page + 1) })}>Next page</button>}
          </nav>
        </>
      )}
    </>
  );
}
