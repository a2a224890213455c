import fc from 'fast-check';
import type { Tally } from '../../faults/support/reliability';
import { STACK_TRACE } from './secrets';

/**
 * Generators of hostile input for the property-based suites, and the one check every answer to it
 * must pass. Each generator yields values that a field can never accept, so a request carrying one
 * has exactly one correct answer: the 4xx of the route's validation.
 */

/** The seed of every property of a run: printed, and replayable with HOSTILE_SEED. */
export const HOSTILE_SEED = process.env.HOSTILE_SEED ? Number(process.env.HOSTILE_SEED) : Math.floor(Math.random() * 2 ** 31);
export const HOSTILE_RUNS = Number(process.env.HOSTILE_RUNS ?? 40);

/** Prints the run's seed (to replay a failure) and records it in the reliability report. */
export function announceSeed(tally: Tally): void {
  console.log(`hostile input: HOSTILE_SEED=${HOSTILE_SEED} HOSTILE_RUNS=${HOSTILE_RUNS}`);
  tally.note(`Last run: HOSTILE_SEED=${HOSTILE_SEED}, ${HOSTILE_RUNS} generated requests per property.`);
}

/** Text that exercises encodings: any code point, including astral ones, RTL marks and combining characters. */
export const unicodeText = (maxLength = 24) => fc.string({ unit: 'binary', minLength: 1, maxLength });

/** JSON nested `depth` levels deep, as text (JSON.stringify of it would itself overflow). */
export const deepJsonText = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
export const deepArrayText = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** A JSON value nested between 20 and 60 levels: deep, but far below any parser limit. */
const nested: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 20, max: 60 }), fc.constantFrom('obj', 'arr'))
  .map(([depth, kind]) => JSON.parse(kind === 'obj' ? deepJsonText(depth) : deepArrayText(depth)));

/** Any JSON value that is not a string. */
export const notAString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(unicodeText(5), { maxLength: 3 }),
  fc.dictionary(unicodeText(5), unicodeText(5), { maxKeys: 3 }),
  nested,
);

/** Any JSON value that is not a number. */
export const notANumber: fc.Arbitrary<unknown> = fc.oneof(
  unicodeText(),
  fc.integer().map(String),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(unicodeText(5), fc.integer(), { maxKeys: 3 }),
  nested,
);

export const notABoolean: fc.Arbitrary<unknown> = fc.oneof(fc.constantFrom('true', 'false', 1, 0, null), fc.array(fc.boolean(), { maxLength: 2 }), fc.dictionary(unicodeText(5), fc.boolean(), { maxKeys: 2 }));

/** Any JSON value that is not an object (arrays included). */
export const notAnObject: fc.Arbitrary<unknown> = fc.oneof(unicodeText(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }));

/** Strings the platform never stores: a NUL somewhere in otherwise ordinary (or exotic) text. */
export const withNul = fc.tuple(unicodeText(), unicodeText()).map(([a, b]) => `${a}\u0000${b}`);
export const tooLong = (max: number) => fc.integer({ min: max + 1, max: max + 300 }).chain((n) => fc.constant('x'.repeat(n)));

/** Never a valid required text field of at most `max` characters (undefined: the field is missing). */
export const badText = (max: number, required = true) => fc.oneof(notAString, fc.constantFrom('', ...(required ? [undefined] : [])), tooLong(max), withNul);

/** Never a valid game-generated identifier (spec, Limits: no ':'). */
export const badIdentifier = (max = 200, required = true) => fc.oneof(badText(max, required), unicodeText().map((s) => `${s}:${s}`));

/** Never a valid amount: negative, more than 2 decimals, too large, not a number. */
export const badAmount = (required = true) =>
  fc.oneof(
    notANumber,
    fc.integer({ min: 1, max: 10_000_000 }).map((n) => -n / 100),
    fc.integer({ min: 1, max: 10_000_000 }).filter((n) => n % 10 !== 0).map((n) => n / 1000),
    fc.constantFrom(1e15, 1e300, Number.MAX_VALUE, 5e-324, ...(required ? [undefined] : [])),
  );

/** Never a valid integer game id (PostgreSQL integer, positive). */
export const badGameId = fc.oneof(
  notANumber,
  fc.integer({ min: -1_000_000, max: 0 }),
  fc.integer({ min: 1, max: 1_000_000 }).map((n) => n + 0.5),
  fc.constantFrom(2147483648, 1e300, undefined),
);

export interface Refusal {
  status: number;
  /** The acceptable codes for this request. */
  codes: string[];
  style: 'wallet' | 'envelope';
}

/**
 * The check of every answer to hostile input: the expected 4xx (never a 5xx), a JSON body in the
 * route family's style carrying one of the expected codes, and no stack trace.
 */
export function expectRefused(res: { status: number; text: string; body: any }, refusal: Refusal, input: unknown, tally?: Tally): void {
  const seen = { status: res.status, code: res.body?.error, input };
  if (res.status !== refusal.status || !refusal.codes.includes(res.body?.error)) {
    throw new Error(`expected ${refusal.status} ${refusal.codes.join('|')}, got ${res.status}: ${res.text.slice(0, 300)}\ninput: ${safeJson(input)}`);
  }
  expect(seen.status).toBeLessThan(500);
  expect(res.text).not.toMatch(STACK_TRACE);
  if (refusal.style === 'envelope') expect(res.body).toMatchObject({ statusCode: refusal.status, message: expect.any(String), data: null });
  else expect(typeof res.body.message === 'string' || res.body.message === undefined).toBe(true);
  tally?.request();
  tally?.check('refused with the expected 4xx code, no stack trace');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 500) ?? String(value);
  } catch {
    return String(value);
  }
}

/** One field of a body replaced by a hostile value (undefined: the field is removed). */
export function withField(body: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  const copy = { ...body };
  if (value === undefined) delete copy[field];
  else copy[field] = value;
  return copy;
}

/** Field name -> generator of a value that field must refuse, as one generator of [field, value]. */
export function oneBadField(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<[string, unknown]> {
  return fc.oneof(...Object.entries(fields).map(([field, arb]) => arb.map((value): [string, unknown] => [field, value])));
}

/** Unknown extra fields of exotic names and values, which must change nothing. */
export const extraFields = fc.dictionary(
  unicodeText(12).map((k) => `x-${k}`),
  fc.oneof(unicodeText(), fc.integer(), nested),
  { maxKeys: 3 },
);

/** A query string with repeated keys allowed, values encoded as given. */
export function queryString(pairs: [string, string][]): string {
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

/** Sends `text` as a body of `method` twice: with a Content-Length, and chunked (no length known up front). */
export async function sendHuge(url: string, method: string, token: string, text: string): Promise<{ status: number; text: string; body: any }[]> {
  const answers = [];
  for (const chunked of [false, true]) {
    const res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: chunked ? new Blob([text]).stream() : text,
      ...(chunked ? { duplex: 'half' } : {}),
    } as RequestInit);
    const body = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    answers.push({ status: res.status, text: body, body: parsed });
  }
  return answers;
}

/** About 1 MiB of JSON. */
export const ONE_MIB_JSON = JSON.stringify({ blob: 'x'.repeat(1024 * 1024) });
