import { z } from 'zod';
import { badRequest, isValidAmount } from '@relay/shared';

/** Parses input with a zod schema; a failure is 400 Bad Request with every field named. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(body)',
    message: issue.message,
  }));
  throw badRequest(`Validation failed: ${details[0].path}: ${details[0].message}`, details);
}

/**
 * Casino and game provider ids travel in URLs, launch query strings and reporting paths, and the
 * spec forbids `:` in identifiers (it is a key separator): word characters and . ~ @ + - only.
 */
export const recordId = z
  .string()
  .regex(/^(?!\.+$)[\w.~@+-]{1,128}$/, 'must be 1 to 128 letters, digits or . _ ~ @ + - (no ":" or "/")');

/** Game ids are integers (spec) in a PostgreSQL integer column. */
export const gameIdParam = z
  .string()
  .regex(/^[1-9]\d{0,9}$/, 'must be a positive integer')
  .transform(Number)
  .refine((n) => n <= 2147483647, 'must be at most 2147483647');

export const currencyCode = z.string().regex(/^[A-Za-z0-9]{2,16}$/, 'must be a currency code of 2 to 16 letters or digits');

export const status = z.enum(['ACTIVE', 'INACTIVE']);
export const name = z.string().trim().min(1, 'must not be empty').max(200);

/** Non-negative money with at most two decimals, exactly as the money routes accept it. */
export const amount = z
  .number()
  .refine(isValidAmount, 'must be a non-negative amount with at most 2 decimals')
  .meta({ description: 'A JSON number, non-negative, with at most 2 decimals, below 10^13.', minimum: 0, exclusiveMaximum: 1e13 });

export function httpUrl(options: { allowQuery: boolean }) {
  return z
    .string()
    .max(2048)
    .refine((text) => {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        return false;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
      // Credentials in a URL would show in every GET; a wallet URL gets a path, never a query,
      // because the relay appends /{operation} to it.
      if (url.username || url.password) return false;
      return options.allowQuery || (url.search === '' && url.hash === '');
    }, options.allowQuery ? 'must be an absolute http(s) URL' : 'must be an absolute http(s) URL without credentials, query or fragment');
}

export const pagination = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
