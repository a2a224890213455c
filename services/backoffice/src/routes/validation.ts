import type { Request } from 'express';
import { z } from 'zod';
import { badRequest, clientAddress, currentContext } from '@relay/shared';
import { callerOf } from '../domain/access';
import type { RequestFacts } from '../domain/audit';

/** Parses input with a zod schema; a failure is 400 Bad Request with every field named. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(body)', message: issue.message }));
  throw badRequest(`Validation failed: ${details[0].path}: ${details[0].message}`, details);
}

export const recordId = z.string().regex(/^(?!\.+$)[\w.~@+-]{1,128}$/, 'must be 1 to 128 letters, digits or . _ ~ @ + - (no ":" or "/")');
export const uuid = z.string().uuid();

export const pagination = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export function addressOf(req: Request): string {
  return clientAddress(req.headers['x-forwarded-for'], req.socket.remoteAddress) ?? 'unknown';
}

/** Who, from where, on which route and request: what every audited write records. */
export function factsOf(req: Request): RequestFacts {
  return {
    caller: callerOf(req.identity),
    method: req.method,
    route: `${req.baseUrl}${req.route ? String(req.route.path) : req.path}`,
    requestId: currentContext()?.requestId ?? null,
    clientAddress: addressOf(req),
  };
}
