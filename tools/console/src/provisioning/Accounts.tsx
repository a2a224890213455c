import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Scope } from '../lib/api';
import { Time } from '../lib/format';
import { useQueryString } from '../lib/useQueryString';
import { QueryState } from '../shell/State';
import { backoffice, enc, type AccountRow } from './adminApi';
import { ConfirmButton, FormError, Pager, SelectField, TextField } from './parts';

const LIMIT = 50;

const scopeText = (s: Scope) => (s.type === 'platform' ? 'platform' : s.type === 'casino' ? `casino ${s.providerId}` : `studio ${s.groupId}`);

/** The people who sign in: create (role and scope), disable or enable, reset the second factor. */
export function Accounts() {
  const client = useQueryClient();
  const [params, setParams] = useQueryString();
  const page = Number(params.get('page') ?? '1') || 1;
  const list = useQuery({ queryKey: ['prov', 'accounts', page], queryFn: () => backoffice.get<AccountRow[]>(`/accounts?page=${page}&limit=${LIMIT}`) });
  const [done, setDone] = useState<string | null>(null);
  const act = useMutation({
    mutationFn: ({ a, action }: { a: AccountRow; action: 'disable' | 'enable' | 'reset-second-factor' }) => backoffice.post<AccountRow>(`/accounts/${enc(a.accountId)}/${action}`),
    onSuccess: (res) => {
      setDone(res.message);
      void client.invalidateQueries({ queryKey: ['prov', 'accounts'] });
    },
  });
  return (
    <>
      <h1>Accounts</h1>
      <NewAccount />
      <section aria-labelledby="acc-list">
        <h2 id="acc-list">People</h2>
        {done && <p role="status" className="ok">{done}</p>}
        <FormError error={act.error} />
        <QueryState isPending={list.isPending} error={list.error} />
        {list.data && (
          <>
            <p>{list.data.meta?.total ?? 0} accounts.</p>
            <table className="results">
              <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Scope</th><th scope="col">Status</th><th scope="col">Second factor</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
              <tbody>
                {list.data.data.map((a) => (
                  <tr key={a.accountId} data-testid="account">
                    <td>{a.displayName}</td>
                    <td>{a.email}</td>
                    <td>{a.role}</td>
                    <td>{scopeText(a.scope)}</td>
                    <td>{a.status}</td>
                    <td>{a.secondFactorEnrolled ? 'enrolled' : 'not enrolled'}</td>
                    <td><Time at={a.createdAt} /></td>
                    <td>
                      <span className="actions">
                        {a.status === 'ACTIVE'
                          ? <ConfirmButton label="Disable" name={`Disable ${a.email}`} confirmLabel="Confirm disable" disabled={act.isPending} onConfirm={() => act.mutate({ a, action: 'disable' })} />
                          : <button type="button" disabled={act.isPending} onClick={() => act.mutate({ a, action: 'enable' })} aria-label={`Enable ${a.email}`}>Enable</button>}
                        {a.secondFactorEnrolled && <ConfirmButton label="Reset second factor" name={`Reset second factor of ${a.email}`} confirmLabel="Confirm reset" disabled={act.isPending} onConfirm={() => act.mutate({ a, action: 'reset-second-factor' })} />}
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} totalPages={list.data.meta?.totalPages ?? 1} onPage={(p) => setParams({ page: String(p) })} />
          </>
        )}
      </section>
    </>
  );
}

const EMPTY = { email: '', displayName: '', password: '', role: 'support', scopeType: 'casino', scopeId: '' };

function NewAccount() {
  const client = useQueryClient();
  const [form, setForm] = useState(EMPTY);
  const set = (k: keyof typeof EMPTY) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const casinos = useQuery({ queryKey: ['directory', 'casinos'], queryFn: () => backoffice.get<{ providerId: string; name: string }[]>('/casinos') });
  const studios = useQuery({ queryKey: ['directory', 'studios'], queryFn: () => backoffice.get<{ groupId: string; name: string }[]>('/game-providers') });
  const scope = (): Scope =>
    form.scopeType === 'casino' ? { type: 'casino', providerId: form.scopeId } : form.scopeType === 'studio' ? { type: 'studio', groupId: form.scopeId } : { type: 'platform' };
  const create = useMutation({
    mutationFn: () => backoffice.post<AccountRow>('/accounts', { email: form.email, displayName: form.displayName, password: form.password, role: form.role, scope: scope() }),
    onSuccess: () => {
      setForm(EMPTY);
      void client.invalidateQueries({ queryKey: ['prov', 'accounts'] });
    },
  });
  const err = create.error;
  const scopeOptions: [string, string][] =
    form.scopeType === 'casino' ? (casinos.data?.data ?? []).map((c) => [c.providerId, `${c.name} (${c.providerId})`])
      : form.scopeType === 'studio' ? (studios.data?.data ?? []).map((s) => [s.groupId, `${s.name} (${s.groupId})`]) : [];
  return (
    <form className="card form" onSubmit={(e: FormEvent) => { e.preventDefault(); create.mutate(); }} aria-label="New account">
      <h2>New account</h2>
      {create.isSuccess && <p role="status" className="ok">Account {create.data.data.email} created; the person enrols a second factor at first sign-in.</p>}
      <div className="form-grid">
        <TextField id="a-email" label="Email" path="email" error={err} value={form.email} onChange={set('email')} required type="email" />
        <TextField id="a-name" label="Display name" path="displayName" error={err} value={form.displayName} onChange={set('displayName')} required />
        <TextField id="a-password" label="First password" path="password" error={err} value={form.password} onChange={set('password')} required type="password" autoComplete="new-password" hint="Hand it over safely; the person signs in with it" />
        <SelectField id="a-role" label="Role" path="role" error={err} value={form.role} onChange={set('role')} options={['admin', 'support', 'finance']} />
        <SelectField id="a-scope" label="Scope" path="scope.type" error={err} value={form.scopeType} onChange={(v) => setForm((f) => ({ ...f, scopeType: v, scopeId: '' }))} options={[['platform', 'platform'], ['casino', 'one casino'], ['studio', 'one game provider']]} />
        {form.scopeType !== 'platform' && (
          <SelectField id="a-scope-id" label={form.scopeType === 'casino' ? 'Casino' : 'Game provider'} path={form.scopeType === 'casino' ? 'scope.providerId' : 'scope.groupId'} error={err} value={form.scopeId} onChange={set('scopeId')} required options={[['', 'choose…'], ...scopeOptions]} />
        )}
      </div>
      <FormError error={err} />
      <div className="actions"><button type="submit" className="primary" disabled={create.isPending}>Create account</button></div>
    </form>
  );
}
