import type { Request, Response } from 'express';
import { stringify } from 'csv-stringify';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { Caller } from '../domain/access';

/**
 * Streams rows as CSV: the first line names the scope and filters of the export (a `#` comment
 * line, which csv-parse skips with `comment: '#'`), then the header row, then one line per row
 * as the database cursor yields it. Back-pressure reaches the cursor through pipeline, so a month
 * of a large casino exports in constant memory; a client that goes away ends the query.
 */
export async function sendCsv(
  req: Request,
  res: Response,
  file: string,
  caller: Caller,
  filters: Record<string, unknown>,
  columns: string[],
  rows: AsyncIterable<Record<string, unknown>>,
): Promise<void> {
  res.status(200).type('text/csv').setHeader('Content-Disposition', `attachment; filename="${file}"`);
  res.write(`${filterLine(caller, filters)}\n`);
  async function* flat() {
    for await (const row of rows) yield flatten(row);
  }
  await pipeline(Readable.from(flat()), stringify({ header: true, columns, cast: CAST }), res);
}

/**
 * Text a spreadsheet would run as a formula (=, +, -, @, tab, carriage return first: ids and
 * names come from casinos and studios) is written with a leading apostrophe, as OWASP's CSV
 * injection advice says; numbers stay numbers. Booleans read true/false rather than 1/empty.
 */
export const CAST = {
  string: (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value),
  boolean: (value: boolean) => (value ? 'true' : 'false'),
};

export function filterLine(caller: Caller, filters: Record<string, unknown>): string {
  const scope = caller.scope.type === 'platform' ? 'platform' : caller.scope.type === 'casino' ? `casino ${caller.scope.providerId}` : `studio ${caller.scope.groupId}`;
  const named = Object.entries(filters)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v instanceof Date ? v.toISOString() : Array.isArray(v) ? v.join('+') : String(v)}`);
  // One line whatever the input: a filter value cannot start a new CSV row.
  return `# scope: ${scope}; filters: ${named.length ? named.join(', ') : 'none'}`.replace(/[\r\n]+/g, ' ');
}

function flatten(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = v !== null && typeof v === 'object' ? JSON.stringify(v) : v;
  return out;
}
