import { z } from 'zod';
import { badRequest } from '@relay/shared';

/**
 * Query-string validation shared by the reporting routes. Values arrive as text (a repeated
 * parameter arrives as an array and is refused); anything outside the rules is a 400 naming the
 * parameter, never a silent default and never a database error.
 */

const INT4_MAX = 2147483647;
/** Identifiers are compared for equality only; the bound keeps absurd input away from the database. */
const MAX_ID_LENGTH = 512;

export function integerParam(min: number, max: number) {
  return z
    .string()
    .regex(/^-?\d{1,12}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .meta({ description: `An integer from ${min} to ${max}.` });
}

/** Game ids are PostgreSQL integers; anything beyond matches no game and is refused up front. */
export const gameIdParam = integerParam(-INT4_MAX - 1, INT4_MAX);

export const idParam = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`)
  .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');

export function enumParam<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: () => `must be one of ${values.join(', ')}` });
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An ISO-8601 instant for from/to, kept at millisecond precision (docs/api, timestamps): finer digits are
 * dropped, a time without zone is UTC. A bare date is the start of that UTC day for `from` and its
 * last millisecond for `to`, so from=D&to=D covers the whole day D.
 */
export function instantParam(bound: 'from' | 'to') {
  const meaning = bound === 'from' ? 'a bare date means the start of that UTC day' : 'a bare date means the last millisecond of that UTC day';
  const input = z.string().meta({
    description: `Inclusive bound on createdAt: an ISO-8601 date or date-time (no zone means UTC), compared at millisecond precision; ${meaning}.`,
    examples: ['2026-11-21T20:47:56.123Z', '2026-11-21'],
  });
  return input.transform((text, ctx) => {
    const date = parseInstant(text, bound);
    if (!date) {
      ctx.addIssue({ code: 'custom', message: 'must be an ISO-8601 date or date-time, e.g. 2026-11-21T20:47:56.123Z' });
      return z.NEVER;
    }
    return date;
  });
}

export function parseInstant(text: string, bound: 'from' | 'to'): Date | null {
  const dateOnly = ISO_DATE.exec(text);
  if (dateOnly) {
    const start = validUtc(+dateOnly[1], +dateOnly[2], +dateOnly[3], 0, 0, 0, 0);
    return start && bound === 'to' ? new Date(start.getTime() + 86_400_000 - 1) : start;
  }
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return null;
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const local = validUtc(+m[1], +m[2], +m[3], +m[4], +m[5], m[6] ? +m[6] : 0, millis);
  if (!local) return null;
  const zone = m[8];
  if (!zone || zone.toUpperCase() === 'Z') return local;
  const digits = zone.replace(':', '');
  const hours = Number(digits.slice(1, 3));
  const minutes = Number(digits.slice(3, 5));
  if (hours > 23 || minutes > 59) return null;
  const offsetMs = (hours * 60 + minutes) * 60_000 * (digits[0] === '-' ? -1 : 1);
  return new Date(local.getTime() - offsetMs);
}

/** Date.UTC rolls 2026-02-30 over to March; a calendar-invalid value is refused instead. */
function validUtc(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): Date | null {
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return date;
}

/** Parses req.query with a strict schema: an unknown parameter is refused (a typo must not widen a report). */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: key, message: 'is not a parameter of this route' }));
    const path = issue.path.map(String).join('.') || '(query)';
    if (issue.code !== 'invalid_type') return [{ path, message: issue.message }];
    const given = (query as Record<string, unknown> | undefined)?.[path];
    return [{ path, message: given === undefined ? 'is required' : 'must be given once, as text' }];
  });
  throw badRequest(`Invalid query: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`, details);
}
