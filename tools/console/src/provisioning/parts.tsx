import { useState, type ReactNode } from 'react';
import { ApiError } from '../lib/api';

/**
 * What every provisioning form shares: labelled inputs whose API problems show next to them, the
 * API's refusal above the buttons, and a secret shown once with its copy button.
 */

/** The problem the API named for this field (its `details` path, or a path under it). */
export function fieldProblem(error: unknown, path: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const hit = error.details.find((d) => d.path === path || d.path.startsWith(`${path}.`));
  return hit?.message;
}

interface FieldProps {
  id: string;
  label: string;
  /** The API's details path of this field. */
  path?: string;
  error?: unknown;
  hint?: string;
}

function Described({ id, hint, problem }: { id: string; hint?: string; problem?: string }) {
  return (
    <>
      {hint && <span id={`${id}-hint`} className="hint muted">{hint}</span>}
      {problem && <span id={`${id}-problem`} className="error field-problem">{problem}</span>}
    </>
  );
}

const describedBy = (id: string, hint?: string, problem?: string) => [hint ? `${id}-hint` : '', problem ? `${id}-problem` : ''].filter(Boolean).join(' ') || undefined;

export function TextField({ id, label, path, error, hint, value, onChange, type = 'text', required, readOnly, placeholder, autoComplete, inputMode }: FieldProps & {
  value: string;
  onChange: (v: string) => void;
  type?: string;
  required?: boolean;
  readOnly?: boolean;
  placeholder?: string;
  autoComplete?: string;
  inputMode?: 'decimal' | 'numeric' | 'text';
}) {
  const problem = path ? fieldProblem(error, path) : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}{required ? ' (required)' : ''}</label>
      <input
        id={id}
        type={type}
        value={value}
        required={required}
        readOnly={readOnly}
        placeholder={placeholder}
        autoComplete={autoComplete ?? 'off'}
        inputMode={inputMode}
        aria-invalid={problem ? true : undefined}
        aria-describedby={describedBy(id, hint, problem)}
        onChange={(e) => onChange(e.target.value)}
      />
      <Described id={id} hint={hint} problem={problem} />
    </div>
  );
}

export function SelectField({ id, label, path, error, hint, value, onChange, options, required }: FieldProps & {
  value: string;
  onChange: (v: string) => void;
  options: (string | [string, string])[];
  required?: boolean;
}) {
  const problem = path ? fieldProblem(error, path) : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}{required ? ' (required)' : ''}</label>
      <select id={id} value={value} required={required} aria-invalid={problem ? true : undefined} aria-describedby={describedBy(id, hint, problem)} onChange={(e) => onChange(e.target.value)}>
        {options.map((o) => {
          const [v, text] = typeof o === 'string' ? [o, o] : o;
          return <option key={v} value={v}>{text}</option>;
        })}
      </select>
      <Described id={id} hint={hint} problem={problem} />
    </div>
  );
}

export function CheckField({ id, label, checked, onChange, path, error }: FieldProps & { checked: boolean; onChange: (v: boolean) => void }) {
  const problem = path ? fieldProblem(error, path) : undefined;
  return (
    <div className="field check">
      <span>
        <input id={id} type="checkbox" checked={checked} aria-describedby={describedBy(id, undefined, problem)} onChange={(e) => onChange(e.target.checked)} />
        <label htmlFor={id}>{label}</label>
      </span>
      <Described id={id} problem={problem} />
    </div>
  );
}

/** The API's refusal of a form: its message and every field it named. */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  if (!(error instanceof ApiError)) return <p className="error" role="alert">The platform could not be reached; nothing was saved.</p>;
  return (
    <div className="error form-error" role="alert">
      <p>{error.message}{error.code && error.code !== error.message ? ` (${error.code})` : ''}</p>
      {error.details.length > 0 && (
        <ul>
          {error.details.map((d) => <li key={`${d.path}:${d.message}`}><code>{d.path}</code>: {d.message}</li>)}
        </ul>
      )}
    </div>
  );
}

/**
 * A secret the platform will not show again: in this component's state only (not in any cache),
 * so leaving or reloading the screen loses it for good.
 */
export function SecretOnce({ label, value, testId }: { label: string; value: string; testId: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  };
  return (
    <div className="secret">
      <div className="secret-label">{label}</div>
      <code data-testid={testId}>{value}</code>
      <button type="button" onClick={() => void copy()} aria-label={`Copy ${label}`}>Copy</button>
      <span role="status" className="muted">{copied === 'yes' ? 'Copied' : copied === 'no' ? 'Copying failed: select the text and copy it' : ''}</span>
    </div>
  );
}

export function SecretsPanel({ title, children, onDone }: { title: string; children: ReactNode; onDone: () => void }) {
  return (
    <section className="card secrets" aria-label={title}>
      <h2>{title}</h2>
      <p><strong>Shown once.</strong> The platform keeps no readable copy: copy it now and hand it over safely. It will not be shown again.</p>
      {children}
      <button type="button" onClick={onDone}>I have copied it</button>
    </section>
  );
}

/** A destructive action asks once more, inline (no browser dialog). */
export function ConfirmButton({ label, name, confirmLabel, onConfirm, disabled }: { label: string; /** The accessible name, when the visible label needs its row to make sense. */ name?: string; confirmLabel: string; onConfirm: () => void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking) return <button type="button" disabled={disabled} aria-label={name} onClick={() => setAsking(true)}>{label}</button>;
  return (
    <span className="confirm">
      <button type="button" className="danger" onClick={() => { setAsking(false); onConfirm(); }}>{confirmLabel}</button>
      <button type="button" onClick={() => setAsking(false)}>Cancel</button>
    </span>
  );
}

export function Pager({ page, totalPages, onPage }: { page: number; totalPages: number; onPage: (p: number) => void }) {
  if (totalPages <= 1) return null;
  return (
    <nav className="pager" aria-label="Pages">
      {page > 1 && <button type="button" onClick={() => onPage(page - 1)}>Previous page</button>}
      <span>Page {page} of {totalPages}</span>
      {page < totalPages && <button type="button" onClick={() => onPage(page + 1)}>Next page</button>}
    </nav>
  );
}
