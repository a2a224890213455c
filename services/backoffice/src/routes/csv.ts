import type { Request, Response } from 'express';
import { stringify } from 'csv-stringify';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { AppError } from '@relay/shared';
import type { Caller } from '../domain/access';
import { auditExport } from '../domain/audit';
import type { BackofficeDeps } from '../domain/deps';
import { factsOf } from './validation';

/**
 * Exports one caller (a person or a casino API token) may run at once in this process. An export
 * holds a database cursor for as long as its client reads; without a bound, one token could open
 * many on the database the money path uses when no replica is configured.
 */
export const MAX_EXPORTS_PER_CALLER = 2;
const running = new Map<string, number>();

/**
 * Streams rows as CSV, after recording the export in the audit trail: the first line names the scope and filters of the export (a `#` comment
 * line, which csv-parse skips with `comment: '#'`), then the header row, then one line per row
 * as the database cursor yields it. Back-pressure reaches the cursor through pipeline, so a month
 * of a large casino exports in constant memory; a client that goes away ends the query.
 */
export async function sendCsv(
  deps: BackofficeDeps,
  req: Request,
  res: Response,
  file: string,
  caller: Caller,
  filters: Record<string, unknown>,
  columns: string[],
  // A function: the query starts (and takes a connection) only once the export is admitted.
  rows: () => AsyncIterable<Record<string, unknown>>,
): Promise<void> {
  const key = `${caller.actorType}:${caller.actorId}`;
  const count = running.get(key) ?? 0;
  if (count >= MAX_EXPORTS_PER_CALLER) {
    throw new AppError('RATE_LIMITED', `At most ${MAX_EXPORTS_PER_CALLER} exports run at once for one caller; wait for one to finish`, { headers: { 'Retry-After': '5' } });
  }
  running.set(key, count + 1);
  try {
    await auditExport(deps, factsOf(req), file, filters);
    await stream(res, file, caller, filters, columns, rows());
  } finally {
    const left = (running.get(key) ?? 1) - 1;
    if (left <= 0) running.delete(key);
    else running.set(key, left);
  }
}

async function stream(
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
  await pipeline(Readable.from(flat()), csvWriter(columns), res);
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

/**
 * The characters of a value that a spreadsheet or a CSV reader would take for structure: a cell's
 * end (comma, or semicolon where that is the list separator), a quote, a tab, a row's end; and the
 * escape itself. Written as %XX, so the line stays one comment line and no value starts a cell of
 * its own (where a formula would run: `providerId=x,=HYPERLINK(...)`).
 */
const STRUCTURE = /[%,;"\t\r\n]/g;
const inert = (value: string) => value.replace(STRUCTURE, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

export function filterLine(caller: Caller, filters: Record<string, unknown>): string {
  const scope = caller.scope.type === 'platform' ? 'platform' : caller.scope.type === 'casino' ? `casino ${inert(caller.scope.providerId)}` : `studio ${inert(caller.scope.groupId)}`;
  const named = Object.entries(filters)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${inert(v instanceof Date ? v.toISOString() : Array.isArray(v) ? v.join('+') : String(v))}`);
  return `# scope: ${scope}; filters: ${named.length ? named.join(', ') : 'none'}`;
}

/** The CSV writer of every export: a header row, then the rows with every text cell guarded (CAST). */
export const csvWriter = (columns: string[]) => stringify({ header: true, columns, cast: CAST });

function flatten(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = v !== null && typeof v === 'object' ? JSON.stringify(v) : v;
  return out;
}
