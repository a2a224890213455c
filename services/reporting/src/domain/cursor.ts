import { createHash } from 'node:crypto';
import { badRequest } from '@relay/shared';
import { isPosition, type KeysetPosition, type SortColumn } from '@relay/ledger';

/**
 * The opaque `cursor` of the reporting lists: base64url of the last row's sort key (exact text),
 * its id, the sort it was made for and a digest of the filters. A cursor replayed with another
 * sort or other filters would silently skip or repeat rows, so it is refused with a 400 instead.
 */

/** The `cursor` value that starts a walk at the first row of the list. */
export const FIRST_PAGE = 'start';

export interface CursorContext {
  sortBy: string;
  sortOrder: 'asc' | 'desc';
  /** Everything else that shapes the list: filters and the from/to range. */
  filters: Record<string, unknown>;
}

export function encodeCursor(position: KeysetPosition, context: CursorContext): string {
  return Buffer.from(JSON.stringify([position.key, position.id, context.sortBy, context.sortOrder, digest(context.filters)])).toString('base64url');
}

/** The position a cursor names, null for FIRST_PAGE; a 400 for anything this list did not hand out. */
export function decodeCursor(text: string, context: CursorContext, sort: SortColumn): KeysetPosition | null {
  if (text === FIRST_PAGE) return null;
  try {
    const [key, id, sortBy, sortOrder, filters] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    const sameList = sortBy === context.sortBy && sortOrder === context.sortOrder && filters === digest(context.filters);
    if (isPosition(key, id, sort) && sameList) return { key: key as string | null, id: id as string };
  } catch {
    // falls through to the refusal
  }
  throw badRequest('Invalid query: cursor must be "start" or the meta.nextCursor of the same list (same filters and sort)', [
    { path: 'cursor', message: 'is not a cursor of this list' },
  ]);
}

/** Key order does not matter; undefined filters are the same as absent ones. */
function digest(filters: Record<string, unknown>): string {
  const entries = Object.entries(filters)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])
    .sort(([a], [b]) => String(a).localeCompare(String(b)));
  return createHash('sha256').update(JSON.stringify(entries)).digest('base64url').slice(0, 16);
}
