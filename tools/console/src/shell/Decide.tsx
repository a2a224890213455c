import { useState, type FormEvent } from 'react';
import { ApiError } from '../lib/api';

/** A note and the buttons of a decision (acknowledge, resolve, review): the API requires the note. */
export function Decide({ id, actions, onDecide }: { id: string; actions: { key: string; label: string }[]; onDecide: (action: string, note: string) => Promise<unknown> }) {
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = (action: string) => async (e?: FormEvent) => {
    e?.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onDecide(action, note);
      setNote('');
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not save; try again');
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="decide" onSubmit={submit(actions[0].key)}>
      <label htmlFor={`note-${id}`}>Note</label>
      <input id={`note-${id}`} value={note} required onChange={(e) => setNote(e.target.value)} />
      {actions.map((a) => (
        <button key={a.key} type="button" disabled={busy || !note.trim()} onClick={() => void submit(a.key)()}>{a.label}</button>
      ))}
      {error && <span className="error" role="alert">{error}</span>}
    </form>
  );
}
