import { z } from 'zod';
import type { ErrorCode } from '@relay/shared';
import type { Operation } from '../document';
import { pageMeta } from '../envelope';
import type { ErrorTable } from '../errors';

/**
 * One back-office operation as the lists in operations-*.ts describe it, turned into the
 * generator's Operation: who may call it (written into the description), how it authenticates,
 * its envelope (or CSV) answer and the error statuses every back-office route shares.
 */
export type Access =
  /** Sign-in: no credential. */
  | 'public'
  /** A read: a session cookie, a casino API token or the ADMIN_TOKEN. */
  | 'read'
  /** A write: a session cookie with its X-CSRF-Token, or the ADMIN_TOKEN. */
  | 'write'
  /** Sign-out: only a session, with its X-CSRF-Token. */
  | 'session';

export type BackofficeOperation = Omit<Operation, 'errorStyle' | 'errors' | 'success' | 'security'> & {
  access: Access;
  /** Roles and scopes allowed, for the description. */
  who: string;
  ok?: { status?: number; message: string; data: z.ZodType | null; example: unknown; meta?: { schema: z.ZodType; example: unknown } | 'page'; headers?: Record<string, unknown> };
  csv?: { description: string; example: string };
  errors?: Partial<Record<number, ErrorCode[]>>;
};

const SECURITY: Record<Access, Record<string, string[]>[]> = {
  public: [],
  read: [{ operatorSession: [] }, { casinoApiToken: [] }, { adminToken: [] }],
  write: [{ operatorSession: [], csrfToken: [] }, { adminToken: [] }],
  session: [{ operatorSession: [], csrfToken: [] }],
};

const TEXT: Partial<Record<number, string>> = {
  400: 'The path, query or body is not valid; `details` names each field.',
  401: 'The credentials or the code are wrong (the answer never tells whether the email exists).',
  404: 'A record the route names does not exist in the caller\'s scope (another tenant\'s record is missing too); the code names which.',
  409: 'The record is not in the state the action needs, or exists already.',
};

export function backoffice(op: BackofficeOperation): Operation {
  const { access, who, ok, csv, errors, ...rest } = op;
  const table: ErrorTable = { 400: { codes: ['Bad Request', ...(errors?.[400] ?? [])], description: TEXT[400]! } };
  if (errors?.[401]) table[401] = { codes: errors[401], description: TEXT[401]! };
  if (access !== 'public') {
    table[403] = {
      codes: ['AUTHENTICATION_FAILED', 'PERMISSION_DENIED', ...(access === 'write' || access === 'session' ? (['CSRF_TOKEN_INVALID'] as ErrorCode[]) : [])],
      description:
        'No credential, an unknown or revoked token, or a session that ended (`AUTHENTICATION_FAILED`); the caller\'s role or scope does not allow the route (`PERMISSION_DENIED`)' +
        (access === 'read' ? '.' : '; a write from a session without its `X-CSRF-Token` (`CSRF_TOKEN_INVALID`).'),
    };
  }
  if (errors?.[404]) table[404] = { codes: errors[404], description: TEXT[404]! };
  if (errors?.[409]) table[409] = { codes: errors[409], description: TEXT[409]! };
  if (rest.body) {
    table[408] = { codes: ['REQUEST_TIMEOUT'], description: 'The body did not arrive within the gateway\'s body time-out; nothing was done.' };
    table[413] = { codes: ['PAYLOAD_TOO_LARGE'], description: 'The body is larger than 64 KiB.' };
  }
  table[429] = {
    codes: ['RATE_LIMITED'],
    description: access === 'public' ? 'Too many failed sign-ins for this email or from this address: locked out for `Retry-After` seconds.' : 'The caller holds its whole share of the relay\'s connections, or failed authentication too often; wait `Retry-After` seconds.',
  };
  table[500] = { codes: ['INTERNAL_ERROR'], description: 'An unexpected failure (never with details).' };
  table[503] = { codes: ['SERVICE_UNAVAILABLE'], description: 'The back office or its database is briefly unavailable, or a search ran too long (narrow it with filters or a period); repeat after `Retry-After` when given.' };

  const description = `${rest.description}\n\n**Who may call:** ${who}`;
  if (csv) {
    return { ...rest, description, security: SECURITY[access], success: { status: 200, description: 'A CSV file, streamed.', csv }, errorStyle: 'envelope', errors: table };
  }
  if (!ok) throw new Error(`${rest.operationId}: an answer is needed`);
  const status = ok.status ?? 200;
  const meta = ok.meta === 'page' ? { schema: pageMeta, example: { total: 1, page: 1, limit: 100, totalPages: 1 } } : ok.meta;
  const schema = z.strictObject({ statusCode: z.literal(status), message: z.string(), data: ok.data ?? z.null(), ...(meta ? { meta: meta.schema } : {}) });
  const example = { statusCode: status, message: ok.message, data: ok.example, ...(meta ? { meta: meta.example } : {}) };
  return {
    ...rest,
    description,
    security: SECURITY[access],
    success: { status, description: `Message \`${ok.message}\`.`, schema, example, ...(ok.headers ? { headers: ok.headers } : {}) },
    errorStyle: 'envelope',
    errors: table,
  };
}
