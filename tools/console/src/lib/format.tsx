import { money } from './money';

/** Money and time as the console shows them: every time is UTC on screen, the reader's local time on hover. */
const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' });

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span>—</span>;
  const d = new Date(at);
  return (
    <time dateTime={at} title={`Local: ${local.format(d)}`}>
      {d.toISOString().slice(0, 19).replace('T', ' ')} UTC
    </time>
  );
}

export function Money({ amount, currency }: { amount: number | null | undefined; currency: string }) {
  return <span className="num">{money(amount, currency)}</span>;
}

/** An id shown in monospace with a button that copies it. */
export function CopyId({ value, label }: { value: string; label?: string }) {
  return (
    <span className="copy-id">
      <code>{value}</code>
      <button type="button" className="link" aria-label={`Copy ${label ?? 'id'} ${value}`} onClick={() => void navigator.clipboard?.writeText(value)}>
        copy
      </button>
    </span>
  );
}
