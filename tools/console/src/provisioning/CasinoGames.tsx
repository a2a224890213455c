import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../lib/api';
import { Money } from '../lib/format';
import { useQueryString } from '../lib/useQueryString';
import { QueryState } from '../shell/State';
import { admin, enc, type Casino, type CasinoGameConfig, type CurrencyConfig, type Game, type Template } from './adminApi';
import { CheckField, ConfirmButton, FormError, SelectField, TextField, fieldProblem } from './parts';
import { amountOrNull, parseValue } from './forms';

/**
 * One casino and one game: the casino's settings of the game (its overrides of the template;
 * saving them enables the game for the casino) and its bet limits per currency.
 */
export function CasinoGames() {
  const [params, setParams] = useQueryString();
  const providerId = params.get('providerId') ?? '';
  const gameId = Number(params.get('gameId') ?? '') || 0;
  const casinos = useQuery({ queryKey: ['prov', 'casinos', 'all'], queryFn: () => admin.get<Casino[]>('/casinos?limit=500') });
  const games = useQuery({ queryKey: ['prov', 'games', '', 'all'], queryFn: () => admin.get<Game[]>('/games?limit=500') });
  return (
    <>
      <h1>Casino games</h1>
      <div className="filters card">
        <SelectField id="cg-casino" label="Casino" value={providerId} onChange={(v) => setParams({ providerId: v })} options={[['', 'choose…'], ...(casinos.data?.data ?? []).map((c) => [c.providerId, `${c.name} (${c.providerId})`] as [string, string])]} />
        <SelectField id="cg-game" label="Game" value={gameId ? String(gameId) : ''} onChange={(v) => setParams({ gameId: v })} options={[['', 'choose…'], ...(games.data?.data ?? []).map((g) => [String(g.gameId), `${g.name} (${g.gameId})`] as [string, string])]} />
      </div>
      <QueryState isPending={casinos.isPending || games.isPending} error={casinos.error ?? games.error} />
      {providerId && gameId > 0 ? (
        <>
          <GameSettings key={`${providerId}/${gameId}`} providerId={providerId} gameId={gameId} />
          <CurrencyConfigs key={`c-${providerId}/${gameId}`} providerId={providerId} gameId={gameId} />
        </>
      ) : <p>Choose a casino and a game.</p>}
    </>
  );
}

const notFoundAs = async <T,>(code: string, fn: () => Promise<T>): Promise<T | null> => {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError && err.code === code) return null;
    throw err;
  }
};


function GameSettings({ providerId, gameId }: { providerId: string; gameId: number }) {
  const client = useQueryClient();
  const base = `/casinos/${enc(providerId)}/games/${gameId}`;
  const template = useQuery({ queryKey: ['prov', 'template', gameId], queryFn: () => notFoundAs('TEMPLATE_NOT_FOUND', async () => (await admin.get<Template>(`/games/${gameId}/config-template`)).data) });
  const config = useQuery({ queryKey: ['prov', 'game-config', providerId, gameId], queryFn: () => notFoundAs('GAME_CONFIG_NOT_FOUND', async () => (await admin.get<CasinoGameConfig>(`${base}/config`)).data) });
  const [draft, setDraft] = useState<Record<string, string> | null>(null);
  const properties = template.data?.properties ?? [];
  const current: Record<string, string> = draft ?? Object.fromEntries(properties.filter((p) => config.data?.overrides.includes(p.name)).map((p) => [p.name, String(config.data?.values[p.name])]));
  const save = useMutation({
    mutationFn: () => {
      const values = Object.fromEntries(properties.filter((p) => (current[p.name] ?? '') !== '').map((p) => [p.name, parseValue(p, current[p.name])]));
      return admin.put<CasinoGameConfig>(`${base}/config`, { values });
    },
    onSuccess: (res) => {
      client.setQueryData(['prov', 'game-config', providerId, gameId], res.data);
      setDraft(null);
    },
  });
  const err = save.error;
  const pending = template.isPending || config.isPending;
  return (
    <section className="card" aria-labelledby="gs-title">
      <h2 id="gs-title">Game settings</h2>
      <QueryState isPending={pending} error={template.error ?? config.error} />
      {!pending && !template.error && !config.error && (
        <form onSubmit={(e: FormEvent) => { e.preventDefault(); save.mutate(); }} aria-label="Game settings">
          <p data-testid="game-enabled">
            {config.data ? `Enabled for this casino (template version ${config.data.templateVersion ?? 'none'}).` : 'Not enabled for this casino yet: saving the settings enables it.'}
          </p>
          {properties.length === 0 ? <p className="muted">The game has no config template: there is nothing to set.</p> : (
            <div className="form-grid">
              {properties.map((p) => {
                const id = `cg-v-${p.name}`;
                const value = current[p.name] ?? '';
                const onChange = (v: string) => setDraft({ ...current, [p.name]: v });
                const hint = `${p.type}${p.required ? ', required' : ''}${p.default !== undefined ? `; empty: the default ${String(p.default)}` : ''}`;
                if (p.type === 'BOOLEAN' || p.type === 'DROPDOWN') {
                  const options = p.type === 'BOOLEAN' ? ['true', 'false'] : (p.values ?? []).map(String);
                  return <SelectField key={p.name} id={id} label={p.name} path={`values.${p.name}`} error={err} value={value} onChange={onChange} hint={hint} options={[['', 'template default'], ...options]} />;
                }
                return <TextField key={p.name} id={id} label={p.name} path={`values.${p.name}`} error={err} value={value} onChange={onChange} hint={hint} type={p.type === 'NUMBER' ? 'number' : 'text'} />;
              })}
            </div>
          )}
          <FormError error={err} />
          {save.isSuccess && <p role="status" className="ok">Settings saved.</p>}
          <div className="actions"><button type="submit" className="primary" disabled={save.isPending}>{config.data ? 'Save settings' : 'Enable game for this casino'}</button></div>
        </form>
      )}
    </section>
  );
}

const EMPTY = { currency: '', minBet: '', maxBet: '', defaultBet: '', betSuggestions: '', maxWin: '', minAutoCashout: '', maxAutoCashout: '', defaultAutoCashout: '', isRoundable: false, isDefault: false };
type CurrencyForm = typeof EMPTY;

const toForm = (c: CurrencyConfig): CurrencyForm => ({
  currency: c.currency,
  minBet: String(c.minBet),
  maxBet: String(c.maxBet),
  defaultBet: String(c.defaultBet),
  betSuggestions: c.betSuggestions.join(', '),
  maxWin: String(c.maxWin),
  minAutoCashout: c.minAutoCashout === null ? '' : String(c.minAutoCashout),
  maxAutoCashout: c.maxAutoCashout === null ? '' : String(c.maxAutoCashout),
  defaultAutoCashout: c.defaultAutoCashout === null ? '' : String(c.defaultAutoCashout),
  isRoundable: c.isRoundable,
  isDefault: c.isDefault,
});

/** Bet limits per currency: a game sees only the currencies listed here in the catalog. */
function CurrencyConfigs({ providerId, gameId }: { providerId: string; gameId: number }) {
  const client = useQueryClient();
  const base = `/casinos/${enc(providerId)}/games/${gameId}/currencies`;
  const key = ['prov', 'currencies', providerId, gameId];
  const list = useQuery({ queryKey: key, queryFn: () => admin.get<CurrencyConfig[]>(base) });
  const [form, setForm] = useState<CurrencyForm>(EMPTY);
  const set = <K extends keyof CurrencyForm>(k: K) => (v: CurrencyForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  const save = useMutation({
    mutationFn: () =>
      admin.put<CurrencyConfig>(`${base}/${enc(form.currency.trim().toUpperCase())}`, {
        minBet: amountOrNull(form.minBet),
        maxBet: amountOrNull(form.maxBet),
        defaultBet: amountOrNull(form.defaultBet),
        betSuggestions: form.betSuggestions.split(',').map((s) => s.trim()).filter(Boolean).map(amountOrNull),
        maxWin: amountOrNull(form.maxWin),
        minAutoCashout: amountOrNull(form.minAutoCashout),
        maxAutoCashout: amountOrNull(form.maxAutoCashout),
        defaultAutoCashout: amountOrNull(form.defaultAutoCashout),
        isRoundable: form.isRoundable,
        isDefault: form.isDefault,
      }),
    onSuccess: () => {
      setForm(EMPTY);
      void client.invalidateQueries({ queryKey: key });
    },
  });
  const remove = useMutation({ mutationFn: (currency: string) => admin.delete(`${base}/${enc(currency)}`), onSuccess: () => client.invalidateQueries({ queryKey: key }) });
  const err = save.error;
  const currencyProblem = fieldProblem(err, 'currency');
  return (
    <section className="card" aria-labelledby="cc-title">
      <h2 id="cc-title">Bet limits per currency</h2>
      <QueryState isPending={list.isPending} error={list.error} />
      {list.data && (list.data.data.length === 0 ? <p>No currency yet: the game offers this casino none.</p> : (
        <table className="results">
          <thead>
            <tr><th scope="col">Currency</th><th scope="col" className="num">Min bet</th><th scope="col" className="num">Default bet</th><th scope="col" className="num">Max bet</th><th scope="col">Suggestions</th><th scope="col" className="num">Max win</th><th scope="col">Default currency</th><th scope="col">Action</th></tr>
          </thead>
          <tbody>
            {list.data.data.map((c) => (
              <tr key={c.currency} data-testid="currency-config">
                <td>{c.currency}</td>
                <td className="num"><Money amount={c.minBet} currency={c.currency} /></td>
                <td className="num"><Money amount={c.defaultBet} currency={c.currency} /></td>
                <td className="num"><Money amount={c.maxBet} currency={c.currency} /></td>
                <td>{c.betSuggestions.join(', ')}</td>
                <td className="num"><Money amount={c.maxWin} currency={c.currency} /></td>
                <td>{c.isDefault ? 'yes' : 'no'}</td>
                <td>
                  <span className="actions">
                    <button type="button" onClick={() => setForm(toForm(c))} aria-label={`Edit ${c.currency}`}>Edit</button>
                    <ConfirmButton label="Remove" name={`Remove ${c.currency}`} confirmLabel="Confirm remove" onConfirm={() => remove.mutate(c.currency)} />
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
      <form onSubmit={(e: FormEvent) => { e.preventDefault(); save.mutate(); }} aria-label="Bet limits of a currency">
        <h3>Add or change a currency</h3>
        <div className="form-grid">
          <TextField id="cc-currency" label="Currency" path="currency" error={err} value={form.currency} onChange={set('currency')} required hint={currencyProblem ? undefined : 'e.g. EUR'} />
          <TextField id="cc-min" label="Min bet" path="minBet" error={err} value={form.minBet} onChange={set('minBet')} required inputMode="decimal" />
          <TextField id="cc-default" label="Default bet" path="defaultBet" error={err} value={form.defaultBet} onChange={set('defaultBet')} required inputMode="decimal" />
          <TextField id="cc-max" label="Max bet" path="maxBet" error={err} value={form.maxBet} onChange={set('maxBet')} required inputMode="decimal" />
          <TextField id="cc-suggestions" label="Bet suggestions" path="betSuggestions" error={err} value={form.betSuggestions} onChange={set('betSuggestions')} hint="Amounts separated by commas" />
          <TextField id="cc-maxwin" label="Max win" path="maxWin" error={err} value={form.maxWin} onChange={set('maxWin')} required inputMode="decimal" />
          <TextField id="cc-minauto" label="Min auto cash-out" path="minAutoCashout" error={err} value={form.minAutoCashout} onChange={set('minAutoCashout')} hint="A multiplier; empty: none" inputMode="decimal" />
          <TextField id="cc-defauto" label="Default auto cash-out" path="defaultAutoCashout" error={err} value={form.defaultAutoCashout} onChange={set('defaultAutoCashout')} inputMode="decimal" />
          <TextField id="cc-maxauto" label="Max auto cash-out" path="maxAutoCashout" error={err} value={form.maxAutoCashout} onChange={set('maxAutoCashout')} inputMode="decimal" />
          <CheckField id="cc-roundable" label="Roundable" checked={form.isRoundable} onChange={set('isRoundable')} path="isRoundable" error={err} />
          <CheckField id="cc-isdefault" label="Default currency" checked={form.isDefault} onChange={set('isDefault')} path="isDefault" error={err} />
        </div>
        <FormError error={err ?? remove.error} />
        {save.isSuccess && <p role="status" className="ok">Bet limits saved.</p>}
        <div className="actions"><button type="submit" className="primary" disabled={save.isPending}>Save bet limits</button></div>
      </form>
    </section>
  );
}
