import { toJsonNumber } from '@relay/shared';

/**
 * Row-to-JSON helpers shared by the repositories. A field with no value is left out of the
 * response object (the spec: `completedAt` is "absent while PENDING"), never sent as null.
 */

/** ISO-8601 UTC with milliseconds. pg hands timestamptz over as a Date truncated to the millisecond. */
export function isoTimestamp(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

export function optionalTimestamp(value: Date | string | null | undefined): string | undefined {
  return value === null || value === undefined ? undefined : isoTimestamp(value);
}

/** NUMERIC columns arrive as text; money leaves as a JSON number. */
export function optionalNumber(value: string | number | null | undefined): number | undefined {
  return toJsonNumber(value) ?? undefined;
}

export function requiredNumber(value: string | number): number {
  return toJsonNumber(value) as number;
}

/** Drops keys whose value is undefined, so JSON.stringify and deep equality agree. */
export function withoutEmpty<T extends Record<string, unknown>>(record: T): T {
  for (const key of Object.keys(record)) {
    if (record[key] === undefined || record[key] === null) delete record[key];
  }
  return record;
}
