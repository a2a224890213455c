import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { ApiError } from '../lib/api';
import { Time } from '../lib/format';
import { useQueryString } from '../lib/useQueryString';
import { QueryState } from '../shell/State';
import { admin, enc, PROPERTY_TYPES, type BrokenCasinos, type Game, type GameProvider, type PropertyType, type Template, type TemplateProperty } from './adminApi';
import { FormError, Pager, SelectField, TextField, fieldProblem } from './parts';
import { newRow, toProperty, toRow, type Row } from './forms';

const LIMIT = 50;

/** Every game provider, for the pickers (the platform has tens, not thousands). */
export function useStudios() {
  return useQuery({ queryKey: ['prov', 'studios', 'all'], queryFn: () => admin.get<GameProvider[]>('/game-providers?limit=500') });
}

/** Games by id, all or one game provider's. */
export function GameList() {
  const [params, setParams] = useQueryString();
  const page = Number(params.get('page') ?? '1') || 1;
  const groupId = params.get('groupId') ?? '';
  const studios = useStudios();
  const list = useQuery({
    queryKey: ['prov', 'games', groupId, page],
    queryFn: () => admin.get<Game[]>(`/games?page=${page}&limit=${LIMIT}${groupId ? `&groupId=${enc(groupId)}` : ''}`),
  });
  return (
    <>
      <h1>Games</h1>
      <div className="filters card">
        <SelectField id="g-filter" label="Game provider" value={groupId} onChange={(v) => setParams({ groupId: v, page: undefined })} options={[['', 'any'], ...(studios.data?.data ?? []).map((s) => [s.groupId, `${s.name} (${s.groupId})`] as [string, string])]} />
        <div className="actions"><Link href="/games/new" className="button-link">New game</Link></div>
      </div>
      <QueryState isPending={list.isPending} error={list.error} />
      {list.data && (
        <>
          <p>{list.data.meta?.total ?? 0} games.</p>
          <table className="results">
            <thead><tr><th scope="col" className="num">Game id</th><th scope="col">Name</th><th scope="col">Game provider</th><th scope="col">Status</th><th scope="col">Front-end URL</th><th scope="col">Updated</th></tr></thead>
            <tbody>
              {list.data.data.map((g) => (
                <tr key={g.gameId}>
                  <td className="num"><Link href={`/games/${g.gameId}`}>{g.gameId}</Link></td>
                  <td>{g.name}</td>
                  <td>{g.groupId}</td>
                  <td>{g.status}</td>
                  <td><code>{g.frontendUrl}</code></td>
                  <td><Time at={g.updatedAt} /></td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} totalPages={list.data.meta?.totalPages ?? 1} onPage={(p) => setParams({ page: String(p) })} />
        </>
      )}
    </>
  );
}

export function GameDetail({ gameId }: { gameId: number }) {
  const isNew = !Number.isInteger(gameId) || gameId <= 0;
  const game = useQuery({ queryKey: ['prov', 'game', gameId], enabled: !isNew, queryFn: () => admin.get<Game>(`/games/${gameId}`) });
  if (isNew) return <><h1>New game</h1><GameForm /></>;
  return (
    <>
      <h1>Game {gameId}</h1>
      <QueryState isPending={game.isPending} error={game.error} />
      {game.data && (
        <>
          <GameForm existing={game.data.data} />
          <TemplateEditor gameId={gameId} />
        </>
      )}
    </>
  );
}

function GameForm({ existing }: { existing?: Game }) {
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const studios = useStudios();
  const [form, setForm] = useState({
    gameId: existing ? String(existing.gameId) : '',
    name: existing?.name ?? '',
    groupId: existing?.groupId ?? '',
    frontendUrl: existing?.frontendUrl ?? '',
    status: existing?.status ?? 'ACTIVE',
  });
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const save = useMutation({
    mutationFn: () => admin.put<Game>(`/games/${enc(form.gameId.trim())}`, { name: form.name, groupId: form.groupId, frontendUrl: form.frontendUrl, status: form.status }),
    onSuccess: (res) => {
      void client.invalidateQueries({ queryKey: ['prov', 'games'] });
      client.setQueryData(['prov', 'game', res.data.gameId], res);
      if (!existing) navigate(`/games/${res.data.gameId}`);
    },
  });
  const err = save.error;
  return (
    <form className="card form" onSubmit={(e: FormEvent) => { e.preventDefault(); save.mutate(); }} aria-label={existing ? 'Edit game' : 'New game'}>
      {save.isSuccess && <p role="status" className="ok">Saved.</p>}
      <div className="form-grid">
        <TextField id="g-id" label="Game id" path="gameId" error={err} value={form.gameId} onChange={set('gameId')} required readOnly={!!existing} type="number" hint={existing ? undefined : 'A positive integer; it cannot be changed later'} />
        <TextField id="g-name" label="Name" path="name" error={err} value={form.name} onChange={set('name')} required />
        <SelectField id="g-group" label="Game provider" path="groupId" error={err} value={form.groupId} onChange={set('groupId')} required options={[['', 'choose…'], ...(studios.data?.data ?? []).map((s) => [s.groupId, `${s.name} (${s.groupId})`] as [string, string])]} />
        <TextField id="g-url" label="Front-end URL" path="frontendUrl" error={err} value={form.frontendUrl} onChange={set('frontendUrl')} required type="url" hint="Where a launch sends the player" />
        <SelectField id="g-status" label="Status" path="status" error={err} value={form.status} onChange={set('status')} options={['ACTIVE', 'INACTIVE']} />
      </div>
      <FormError error={err} />
      <div className="actions"><button type="submit" className="primary" disabled={save.isPending}>{existing ? 'Save game' : 'Create game'}</button></div>
    </form>
  );
}

/**
 * The properties casinos may set for this game. A change the API refuses because it would break
 * casinos' configs shows those casinos and their problems, and the edit stays as typed.
 */
function TemplateEditor({ gameId }: { gameId: number }) {
  const client = useQueryClient();
  const template = useQuery({
    queryKey: ['prov', 'template', gameId],
    queryFn: async () => {
      try {
        return (await admin.get<Template>(`/games/${gameId}/config-template`)).data;
      } catch (err) {
        if (err instanceof ApiError && err.code === 'TEMPLATE_NOT_FOUND') return null;
        throw err;
      }
    },
  });
  const [rows, setRows] = useState<Row[] | null>(null);
  const loaded = rows ?? (template.data ? template.data.properties.map(toRow) : template.data === null ? [] : null);
  const save = useMutation({
    mutationFn: (properties: TemplateProperty[]) => admin.put<Template>(`/games/${gameId}/config-template`, { properties }),
    onSuccess: (res) => {
      client.setQueryData(['prov', 'template', gameId], res.data);
      setRows(res.data.properties.map(toRow));
    },
  });
  const update = (key: number, change: Partial<Row>) => setRows((loaded ?? []).map((r) => (r.key === key ? { ...r, ...change } : r)));
  const err = save.error;
  const broken = err instanceof ApiError && err.code === 'TEMPLATE_CHANGE_REJECTED' ? (err.data as BrokenCasinos | null) : null;
  return (
    <section className="card" aria-labelledby="t-title">
      <h2 id="t-title">Config template</h2>
      <QueryState isPending={template.isPending} error={template.error} />
      {loaded && (
        <form onSubmit={(e) => { e.preventDefault(); save.mutate(loaded.map(toProperty)); }} aria-label="Config template">
          <p className="muted">
            {template.data ? `Version ${template.data.version}.` : 'No template yet: casinos can set nothing for this game.'} Dropdown values are separated by commas;
            numbers are sent as numbers. A default of a BOOLEAN is true or false.
          </p>
          {loaded.length === 0 ? <p>No properties.</p> : (
            <table className="results template">
              <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Values (dropdown)</th><th scope="col">Required</th><th scope="col">Default</th><th scope="col">Action</th></tr></thead>
              <tbody>
                {loaded.map((r, i) => {
                  const problem = (attr: string) => fieldProblem(err, `properties.${i}.${attr}`);
                  return (
                    <tr key={r.key} data-testid="template-property">
                      <td>
                        <label className="visually-hidden" htmlFor={`t-name-${r.key}`}>Property {i + 1} name</label>
                        <input id={`t-name-${r.key}`} value={r.name} onChange={(e) => update(r.key, { name: e.target.value })} aria-invalid={problem('name') ? true : undefined} />
                        {problem('name') && <div className="error">{problem('name')}</div>}
                      </td>
                      <td>
                        <label className="visually-hidden" htmlFor={`t-type-${r.key}`}>Property {i + 1} type</label>
                        <select id={`t-type-${r.key}`} value={r.type} onChange={(e) => update(r.key, { type: e.target.value as PropertyType })}>
                          {PROPERTY_TYPES.map((t) => <option key={t}>{t}</option>)}
                        </select>
                        {problem('type') && <div className="error">{problem('type')}</div>}
                      </td>
                      <td>
                        <label className="visually-hidden" htmlFor={`t-values-${r.key}`}>Property {i + 1} values</label>
                        <input id={`t-values-${r.key}`} value={r.values} disabled={r.type !== 'DROPDOWN'} onChange={(e) => update(r.key, { values: e.target.value })} />
                        {problem('values') && <div className="error">{problem('values')}</div>}
                      </td>
                      <td>
                        <input id={`t-req-${r.key}`} type="checkbox" checked={r.required} onChange={(e) => update(r.key, { required: e.target.checked })} />
                        <label className="visually-hidden" htmlFor={`t-req-${r.key}`}>Property {i + 1} required</label>
                      </td>
                      <td>
                        <label className="visually-hidden" htmlFor={`t-def-${r.key}`}>Property {i + 1} default</label>
                        <input id={`t-def-${r.key}`} value={r.default} onChange={(e) => update(r.key, { default: e.target.value })} />
                        {problem('default') && <div className="error">{problem('default')}</div>}
                      </td>
                      <td><button type="button" onClick={() => setRows(loaded.filter((x) => x.key !== r.key))} aria-label={`Remove property ${i + 1}`}>Remove</button></td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          {broken ? (
            <div className="error form-error" role="alert" data-testid="template-rejected">
              <p><strong>Not saved:</strong> {err instanceof Error ? err.message : ''}. Your edit is kept; change it, or first change these casinos' configs.</p>
              <ul>
                {broken.casinos.map((c) => (
                  <li key={c.providerId}>
                    Casino <Link href={`/casino-games?providerId=${enc(c.providerId)}&gameId=${gameId}`}>{c.providerId}</Link>:
                    <ul>{c.problems.map((p) => <li key={`${p.path}:${p.message}`}><code>{p.path}</code>: {p.message}</li>)}</ul>
                  </li>
                ))}
              </ul>
            </div>
          ) : <FormError error={err} />}
          {save.isSuccess && <p role="status" className="ok">Template saved (version {save.data.data.version}).</p>}
          <div className="actions">
            <button type="button" onClick={() => setRows([...loaded, newRow()])}>Add property</button>
            <button type="submit" className="primary" disabled={save.isPending}>Save template</button>
          </div>
        </form>
      )}
    </section>
  );
}
