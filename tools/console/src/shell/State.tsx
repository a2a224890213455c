import { ApiError } from '../lib/api';

/** Loading and failure as every screen shows them: the API's own message, never a trace. */
export function QueryState({ isPending, error }: { isPending: boolean; error: unknown }) {
  if (isPending) return <p role="status">Loading…</p>;
  if (error) {
    const msg = error instanceof ApiError ? (error.status === 404 ? `Not found: ${error.message}` : error.message) : 'The back office could not be reached';
    return <p className="error" role="alert">{msg}</p>;
  }
  return null;
}
