import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { ApiError } from '../lib/api';
import { Time } from '../lib/format';
import { useQueryString } from '../lib/useQueryString';
import { QueryState } from '../shell/State';
import { admin, enc, type GameProvider } from './adminApi';
import { ConfirmButton, FormError, Pager, SecretOnce, SecretsPanel, SelectField, TextField, fieldProblem } from './parts';

const LIMIT = 50;

/** Game providers (studios), oldest first, paged. */
export function StudioList() {
  const [params, setParams] = useQueryString();
  const page = Number(params.get('page') ?? '1') || 1;
  const list = useQuery({ queryKey: ['prov', 'studios', page], queryFn: () => admin.get<GameProvider[]>(`/game-providers?page=${page}&limit=${LIMIT}`) });
  return (
    <>
      <h1>Game providers</h1>
      <p><Link href="/new-game-provider" className="button-link">New game provider</Link></p>
      <QueryState isPending={list.isPending} error={list.error} />
      {list.data && (
        <>
          <p>{list.data.meta?.total ?? 0} game providers.</p>
          <table className="results">
            <thead><tr><th scope="col">Game provider</th><th scope="col">Name</th><th scope="col">Status</th><th scope="col" className="num">Rate limit / s</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {list.data.data.map((g) => (
                <tr key={g.groupId}>
                  <td><Link href={`/studios/${enc(g.groupId)}`}>{g.groupId}</Link></td>
                  <td>{g.name}</td>
                  <td>{g.status}</td>
                  <td className="num">{g.rateLimitPerSecond ?? 'default'}</td>
                  <td><Time at={g.createdAt} /></td>
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

export function StudioDetail({ groupId }: { groupId: string | null }) {
  const studio = useQuery({ queryKey: ['prov', 'studio', groupId], enabled: groupId !== null, queryFn: () => admin.get<GameProvider>(`/game-providers/${enc(groupId ?? '')}`) });
  if (groupId === null) return <><h1>New game provider</h1><StudioForm /></>;
  return (
    <>
      <h1>Game provider {groupId}</h1>
      <QueryState isPending={studio.isPending} error={studio.error} />
      {studio.data && (
        <>
          <StudioForm existing={studio.data.data} />
          <p><Link href={`/games?groupId=${enc(groupId)}`}>Games of this provider</Link></p>
          <StudioTokens studio={studio.data.data} />
          <LaunchEncryption studio={studio.data.data} />
        </>
      )}
    </>
  );
}

function StudioForm({ existing }: { existing?: GameProvider }) {
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const [form, setForm] = useState({
    groupId: existing?.groupId ?? '',
    name: existing?.name ?? '',
    status: existing?.status ?? 'ACTIVE',
    rateLimitPerSecond: existing?.rateLimitPerSecond === null || existing?.rateLimitPerSecond === undefined ? '' : String(existing.rateLimitPerSecond),
  });
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const save = useMutation({
    mutationFn: () =>
      admin.put<GameProvider>(`/game-providers/${enc(form.groupId.trim())}`, {
        name: form.name,
        status: form.status,
        rateLimitPerSecond: form.rateLimitPerSecond.trim() === '' ? null : Number(form.rateLimitPerSecond),
      }),
    onSuccess: (res) => {
      void client.invalidateQueries({ queryKey: ['prov', 'studios'] });
      void client.invalidateQueries({ queryKey: ['prov', 'studio', res.data.groupId] });
      if (!existing) navigate(`/studios/${enc(res.data.groupId)}`);
    },
  });
  const err = save.error;
  return (
    <form className="card form" onSubmit={(e: FormEvent) => { e.preventDefault(); save.mutate(); }} aria-label={existing ? 'Edit game provider' : 'New game provider'}>
      {save.isSuccess && <p role="status" className="ok">Saved.</p>}
      <div className="form-grid">
        <TextField id="s-id" label="Game provider id (groupId)" path="groupId" error={err} value={form.groupId} onChange={set('groupId')} required readOnly={!!existing} />
        <TextField id="s-name" label="Name" path="name" error={err} value={form.name} onChange={set('name')} required />
        <SelectField id="s-status" label="Status" path="status" error={err} value={form.status} onChange={set('status')} options={['ACTIVE', 'INACTIVE']} hint="INACTIVE refuses every game route of this provider" />
        <TextField id="s-rate" label="Rate limit per second" path="rateLimitPerSecond" error={err} value={form.rateLimitPerSecond} onChange={set('rateLimitPerSecond')} type="number" hint="Empty: the platform default; 0: no limit" />
      </div>
      <FormError error={err} />
      <div className="actions"><button type="submit" className="primary" disabled={save.isPending}>{existing ? 'Save game provider' : 'Create game provider'}</button></div>
    </form>
  );
}

/** The studio backend's bearer tokens: several may be live (rotation); each shown once when issued. */
function StudioTokens({ studio }: { studio: GameProvider }) {
  const client = useQueryClient();
  const [issued, setIssued] = useState<{ tokenId: string; token: string } | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: ['prov', 'studio', studio.groupId] });
  const issue = useMutation({
    mutationFn: () => admin.post<{ tokenId: string; token: string }>(`/game-providers/${enc(studio.groupId)}/tokens`),
    onSuccess: (res) => {
      setIssued(res.data);
      void refresh();
    },
  });
  const revoke = useMutation({ mutationFn: (tokenId: string) => admin.delete(`/game-providers/${enc(studio.groupId)}/tokens/${enc(tokenId)}`), onSuccess: () => void refresh() });
  const tokens = studio.tokens ?? [];
  return (
    <section className="card" aria-labelledby="st-title">
      <h2 id="st-title">Game provider tokens</h2>
      {issued && (
        <SecretsPanel title={`Token ${issued.tokenId}`} onDone={() => { setIssued(null); issue.reset(); }}>
          <SecretOnce label="Game provider token" value={issued.token} testId="secret-provider-token" />
        </SecretsPanel>
      )}
      <div className="actions"><button type="button" className="primary" disabled={issue.isPending} onClick={() => issue.mutate()}>Issue token</button></div>
      <FormError error={issue.error ?? revoke.error} />
      {tokens.length === 0 ? <p>No tokens yet.</p> : (
        <table className="results">
          <thead><tr><th scope="col">Token id</th><th scope="col">Issued</th><th scope="col">Revoked</th><th scope="col">Action</th></tr></thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.tokenId} data-testid="provider-token">
                <td><code>{t.tokenId}</code></td>
                <td><Time at={t.createdAt} /></td>
                <td>{t.revokedAt ? <Time at={t.revokedAt} /> : 'live'}</td>
                <td>{!t.revokedAt && <ConfirmButton label="Revoke" name={`Revoke token ${t.tokenId}`} confirmLabel="Confirm revoke" disabled={revoke.isPending} onConfirm={() => revoke.mutate(t.tokenId)} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * The studio's RSA public key: with one, launches forward their parameters sealed (JWE). A public
 * key is no secret; the API refuses text holding a private key.
 */
function LaunchEncryption({ studio }: { studio: GameProvider }) {
  const client = useQueryClient();
  const [pem, setPem] = useState('');
  const refresh = () => client.invalidateQueries({ queryKey: ['prov', 'studio', studio.groupId] });
  const path = `/game-providers/${enc(studio.groupId)}/launch-encryption-key`;
  const save = useMutation({
    mutationFn: () => admin.put<{ modulusLength: number }>(path, { publicKeyPem: pem }),
    onSuccess: () => {
      setPem('');
      void refresh();
    },
  });
  const remove = useMutation({ mutationFn: () => admin.delete(path), onSuccess: () => void refresh() });
  // INVALID_PUBLIC_KEY is about the one field, with or without details naming it.
  const keyRefused = save.error instanceof ApiError && save.error.code === 'INVALID_PUBLIC_KEY';
  const problem = fieldProblem(save.error, 'publicKeyPem') ?? (keyRefused ? (save.error as ApiError).message : undefined);
  return (
    <section className="card" aria-labelledby="le-title">
      <h2 id="le-title">Launch encryption</h2>
      <p data-testid="launch-encryption">
        {studio.launchEncryption ? 'On: launch parameters are sealed with the key below.' : 'Off: launch parameters are forwarded in the clear.'}
        {save.isSuccess && ` Key saved (${save.data.data.modulusLength}-bit RSA).`}
      </p>
      {studio.launchPublicKeyPem && <pre>{studio.launchPublicKeyPem}</pre>}
      <form onSubmit={(e: FormEvent) => { e.preventDefault(); save.mutate(); }} aria-label="Launch encryption key">
        <div className="field">
          <label htmlFor="le-pem">RSA public key (PEM, 2048 bits or more)</label>
          <textarea id="le-pem" rows={5} cols={66} value={pem} onChange={(e) => setPem(e.target.value)} aria-invalid={problem ? true : undefined} aria-describedby={problem ? 'le-pem-problem' : undefined} />
          {problem && <span id="le-pem-problem" className="error field-problem">{problem}</span>}
        </div>
        <FormError error={(problem ? null : save.error) ?? remove.error} />
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending || !pem.trim()}>{studio.launchEncryption ? 'Replace key' : 'Turn on with this key'}</button>
          {studio.launchEncryption && <ConfirmButton label="Turn launch encryption off" confirmLabel="Confirm turn off" disabled={remove.isPending} onConfirm={() => remove.mutate()} />}
        </div>
      </form>
    </section>
  );
}
