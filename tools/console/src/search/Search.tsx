import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { API, get, query, storyPath, type Round, type SearchMeta, type Transaction } from '../lib/api';
import { Money, Time } from '../lib/format';
import { useQueryString } from '../lib/useQueryString';
import { QueryState } from '../shell/State';

/** Every filter of the back-office search (typed ones; status and category are lists). */
const FILTERS = ['providerId', 'groupId', 'playerId', 'roundId', 'transactionId', 'sessionId', 'gameId', 'currency', 'reason', 'amountMin', 'amountMax', 'from', 'to'] as const;
const LABELS: Record<(typeof FILTERS)[number], string> = {
  providerId: 'Casino (providerId)', groupId: 'Studio (groupId)', playerId: 'Player', roundId: 'Round id', transactionId: 'Transaction id', sessionId: 'Session id',
  gameId: 'Game id', currency: 'Currency', reason: 'Settlement reason', amountMin: 'Amount from', amountMax: 'Amount up to',
  from: 'From (ISO instant, UTC)', to: 'To (ISO instant, UTC)',
};

/** The sorts the API offers per list (sortBy); createdAt is the default and stays out of the address. */
const SORTS = { rounds: ['createdAt', 'settledAt', 'betAmount', 'payoutAmount'], transactions: ['createdAt', 'completedAt', 'amount'] } as const;
type Table = keyof typeof SORTS;
export interface SortState {
  by: string;
  order: 'asc' | 'desc';
}

/**
 * Rounds or transactions matching the filters, sorted by any column header (the sort lives in the
 * address with the filters, and paging and the CSV export use it), with exact totals per currency.
 */
export function Search() {
  const [params, setParams] = useQueryString();
  const table = params.get('table') === 'transactions' ? 'transactions' : 'rounds';
  const order = params.get('sortOrder') === 'asc' ? 'asc' : 'desc';
  // A sort the list does not offer (a link from the other tab) falls back to the default.
  const asked = params.get('sortBy') ?? 'createdAt';
  const sortBy = (SORTS[table] as readonly string[]).includes(asked) ? asked : 'createdAt';
  const sorting = { sortBy: sortBy === 'createdAt' ? undefined : sortBy, sortOrder: order };
  const cursor = params.get('cursor') ?? undefined;
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? undefined]));
  const status = params.get('status') ?? undefined;
  // Transactions only: a round has both a bet and a settlement.
  const category = table === 'transactions' ? params.get('category') ?? undefined : undefined;
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])));
  const qs = query({ ...filters, status, category, ...sorting, limit: 50 });
  const found = useQuery({
    queryKey: ['search', table, qs, cursor],
    queryFn: () => get<(Round | Transaction)[], SearchMeta>(`/money/${table}${query({ ...filters, status, category, ...sorting, limit: 50, cursor })}`),
  });
  // The export in the order on screen (its own default would be oldest first).
  const csv = `${API}/money/${table}.csv${query({ ...filters, status, category, ...sorting })}`;
  // The same column again turns the order round; another column starts with its largest or newest.
  const onSort = (by: string) => setParams({
    sortBy: by === 'createdAt' ? undefined : by,
    sortOrder: by === sortBy ? (order === 'desc' ? 'asc' : 'desc') : 'desc',
    cursor: undefined,
  });

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setParams({ ...draft, cursor: undefined });
  };

  return (
    <>
      <h1>Search</h1>
      <div role="tablist" aria-label="What to search" className="tabs">
        {(['rounds', 'transactions'] as const).map((t) => (
          <button key={t} role="tab" type="button" aria-selected={table === t} onClick={() => setParams({ table: t, status: undefined, category: undefined, cursor: undefined, sortBy: undefined })}>
            {t === 'rounds' ? 'Rounds' : 'Transactions'}
          </button>
        ))}
      </div>
      <form className="filters card" onSubmit={apply} aria-label="Filters">
        {FILTERS.map((f) => (
          <div key={f} className="field">
            <label htmlFor={`f-${f}`}>{LABELS[f]}</label>
            <input id={`f-${f}`} value={draft[f] ?? ''} onChange={(e) => setDraft({ ...draft, [f]: e.target.value })} />
          </div>
        ))}
        <div className="field">
          <label htmlFor="f-status">Status</label>
          <select id="f-status" value={status ?? ''} onChange={(e) => setParams({ status: e.target.value, cursor: undefined })}>
            <option value="">any</option>
            {(table === 'rounds' ? ['OPEN', 'SETTLED'] : ['PENDING', 'SUCCESS', 'FAILED']).map((s) => <option key={s}>{s}</option>)}
          </select>
        </div>
        {table === 'transactions' && (
          <div className="field">
            <label htmlFor="f-category">Category</label>
            <select id="f-category" value={category ?? ''} onChange={(e) => setParams({ category: e.target.value, cursor: undefined })}>
              <option value="">any</option>
              <option value="CASH_OUT">CASH_OUT (bet)</option>
              <option value="CASH_IN">CASH_IN (settlement)</option>
            </select>
          </div>
        )}
        <div className="actions">
          <button type="submit" className="primary">Search</button>
          <a href={csv} download>Export CSV</a>
        </div>
      </form>
      <QueryState isPending={found.isPending} error={found.error} />
      {found.data && (
        <>
          <section className="totals" aria-label="Totals">
            <strong>{found.data.meta?.totals.count ?? 0}</strong> {table} match.
            {(found.data.meta?.totals.byCurrency ?? []).map((t) => (
              <span key={t.currency} className="pill">
                {t.currency}: {t.count}
                {t.amount !== undefined && <> · <Money amount={t.amount} currency={t.currency} /></>}
                {t.betAmount !== undefined && <> · bets <Money amount={t.betAmount} currency={t.currency} /> · payouts <Money amount={t.payoutAmount} currency={t.currency} /></>}
              </span>
            ))}
          </section>
          <Results table={table} rows={found.data.data} sort={{ by: sortBy, order }} onSort={onSort} />
          <nav className="pager" aria-label="Pages">
            {cursor && <button type="button" onClick={() => setParams({ cursor: undefined })}>First page</button>}
            {found.data.meta?.nextCursor && <button type="button" onClick={() => setParams({ cursor: found.data.meta!.nextCursor! })}>Next page</button>}
          </nav>
        </>
      )}
    </>
  );
}

/** A column header that sorts: a button (Enter or Space), aria-sort on the column the list is sorted by. */
export function SortHeader({ label, by, sort, onSort, numeric }: { label: string; by: string; sort: SortState; onSort: (by: string) => void; numeric?: boolean }) {
  const active = sort.by === by;
  return (
    <th scope="col" className={numeric ? 'num' : undefined} aria-sort={active ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className="link sort" onClick={() => onSort(by)}>
        {label}
        <span aria-hidden="true">{active ? (sort.order === 'asc' ? ' ▲' : ' ▼') : ' ↕'}</span>
      </button>
    </th>
  );
}

function Results({ table, rows, sort, onSort }: { table: Table; rows: (Round | Transaction)[]; sort: SortState; onSort: (by: string) => void }) {
  const header = (label: string, by: string, numeric?: boolean) => <SortHeader label={label} by={by} sort={sort} onSort={onSort} numeric={numeric} />;
  if (rows.length === 0) return <p>Nothing matches.</p>;
  if (table === 'rounds') {
    return (
      <table className="results">
        <thead><tr>{header('Time', 'createdAt')}<th scope="col">Casino</th><th scope="col">Round</th><th scope="col">Player</th><th scope="col">Game</th><th scope="col">Status</th>{header('Settled', 'settledAt')}{header('Bet', 'betAmount', true)}{header('Payout', 'payoutAmount', true)}</tr></thead>
        <tbody>
          {(rows as Round[]).map((r) => (
            <tr key={`${r.providerId}/${r.roundId}`}>
              <td><Time at={r.openedAt ?? r.createdAt} /></td>
              <td>{r.providerId}</td>
              <td><Link href={storyPath(r.providerId, r.roundId)}>{r.roundId}</Link></td>
              <td>{r.playerId}</td>
              <td>{r.gameId}</td>
              <td>{r.status}</td>
              <td><Time at={r.settledAt} /></td>
              <td className="num"><Money amount={r.betAmount} currency={r.currency} /></td>
              <td className="num"><Money amount={r.payoutAmount} currency={r.currency} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  }
  return (
    <table className="results">
      <thead><tr>{header('Time', 'createdAt')}<th scope="col">Casino</th><th scope="col">Transaction</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Round</th><th scope="col">Player</th>{header('Completed', 'completedAt')}{header('Amount', 'amount', true)}</tr></thead>
      <tbody>
        {(rows as Transaction[]).map((t) => (
          <tr key={`${t.providerId}/${t.transactionId}`}>
            <td><Time at={t.createdAt} /></td>
            <td>{t.providerId}</td>
            <td><code>{t.transactionId}</code></td>
            <td>{t.category}</td>
            <td>{t.status}{t.errorCode ? ` (${t.errorCode})` : ''}</td>
            <td><Link href={storyPath(t.providerId, t.roundId)}>{t.roundId}</Link></td>
            <td>{t.playerId}</td>
            <td><Time at={t.completedAt} /></td>
            <td className="num"><Money amount={t.amount} currency={t.currency} /></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
