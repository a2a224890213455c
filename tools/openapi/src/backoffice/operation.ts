import { z } from 'zod';
import { authorize, type Caller, type Permission } from '@relay/backoffice';
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
  /** A write a casino's systems make too: also a casino API token. */
  | 'token-write'
  /** Sign-out: only a session, with its X-CSRF-Token. */
  | 'session';

export type BackofficeOperation = Omit<Operation, 'errorStyle' | 'errors' | 'success' | 'security'> & {
  access: Access;
  /**
   * The permission the route's use case checks (services/backoffice/src/domain/access.ts): the
   * description's "who may call" is computed from its grants, so it cannot drift from them.
   */
  permission?: Permission;
  /** For a route that checks no permission (sign-in, the session): who may call it, in words. */
  who?: string;
  ok?: { status?: number; message: string; data: z.ZodType | null; example: unknown; meta?: { schema: z.ZodType; example: unknown } | 'page'; headers?: Record<string, unknown> };
  /** Another status the route answers with the same data (a create repeated: 200 beside 201). */
  alsoOk?: { status: number; message: string };
  csv?: { description: string; example: string };
  errors?: Partial<Record<number, ErrorCode[]>>;
};

const ROLES = ['admin', 'support', 'finance'] as const;
const SCOPES: { name: string; scope: Caller['scope'] }[] = [
  { name: 'platform', scope: { type: 'platform' } },
  { name: 'casino', scope: { type: 'casino', providerId: 'c' } },
  { name: 'studio', scope: { type: 'studio', groupId: 'g' } },
];

function allows(permission: Permission, caller: Caller): boolean {
  try {
    authorize(caller, permission);
    return true;
  } catch {
    return false;
  }
}

/** "Who may call", from the grants themselves: each role in each kind of scope, casino API tokens and the ADMIN_TOKEN. */
export function whoMay(permission: Permission): string {
  const parts: string[] = [];
  for (const { name, scope } of SCOPES) {
    const roles = ROLES.filter((role) => allows(permission, { actorType: 'operator', actorId: 'x', role, scope }));
    if (roles.length === ROLES.length) parts.push(`every ${name} account`);
    else if (roles.length) parts.push(`${name} ${roles.map((r) => `\`${r}\``).join(' and ')} accounts`);
  }
  if (allows(permission, { actorType: 'casino-token', actorId: 'x', role: 'support', scope: SCOPES[1].scope })) parts.push('casino API tokens');
  if (allows(permission, { actorType: 'admin-token', actorId: 'ADMIN_TOKEN', role: 'admin', scope: { type: 'platform' } })) parts.push('the `ADMIN_TOKEN`');
  const list = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : (parts[0] ?? 'nobody');
  const scoped = parts.some((p) => p.includes('casino') || p.includes('studio'));
  return `${list.charAt(0).toUpperCase()}${list.slice(1)} (permission \`${permission}\`).${scoped ? ' Each caller sees and acts on the records of its own scope only.' : ''}`;
}

const SECURITY: Record<Access, Record<string, string[]>[]> = {
  public: [],
  read: [{ operatorSession: [] }, { casinoApiToken: [] }, { adminToken: [] }],
  write: [{ operatorSession: [], csrfToken: [] }, { adminToken: [] }],
  'token-write': [{ operatorSession: [], csrfToken: [] }, { casinoApiToken: [] }, { adminToken: [] }],
  session: [{ operatorSession: [], csrfToken: [] }],
};

const TEXT: Partial<Record<number, string>> = {
  400: 'The path, query or body is not valid; `details` names each field.',
  401: 'The credentials or the code are wrong (the answer never tells whether the email exists).',
  404: 'A record the route names does not exist in the caller\'s scope (another tenant\'s record is missing too); the code names which.',
  409: 'The record is not in the state the action needs, or exists already.',
};

export function backoffice(op: BackofficeOperation): Operation {
  const { access, permission, who, ok, alsoOk, csv, errors, ...rest } = op;
  const table: ErrorTable = { 400: { codes: ['Bad Request', ...(errors?.[400] ?? [])], description: TEXT[400]! } };
  if (errors?.[401]) table[401] = { codes: errors[401], description: TEXT[401]! };
  if (access !== 'public') {
    table[403] = {
      codes: ['AUTHENTICATION_FAILED', 'PERMISSION_DENIED', ...(access === 'read' ? [] : (['CSRF_TOKEN_INVALID'] as ErrorCode[]))],
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

  const allowed = permission ? whoMay(permission) : who;
  if (!allowed) throw new Error(`${rest.operationId}: say who may call it`);
  const description = `${rest.description}\n\n**Who may call:** ${allowed}`;
  if (csv) {
    table[429] = { codes: ['RATE_LIMITED'], description: `${table[429].description.replace(/;.*$/, '')}, or already runs two exports at once; wait \`Retry-After\` seconds.` };
    return { ...rest, description, security: SECURITY[access], success: { status: 200, description: 'A CSV file, streamed.', csv }, errorStyle: 'envelope', errors: table };
  }
  if (!ok) throw new Error(`${rest.operationId}: an answer is needed`);
  const status = ok.status ?? 200;
  const meta = ok.meta === 'page' ? { schema: pageMeta, example: { total: 1, page: 1, limit: 100, totalPages: 1 } } : ok.meta;
  const answer = (code: number, message: string) => ({
    schema: z.strictObject({ statusCode: z.literal(code), message: z.string(), data: ok.data ?? z.null(), ...(meta ? { meta: meta.schema } : {}) }),
    example: { statusCode: code, message, data: ok.example, ...(meta ? { meta: meta.example } : {}) },
  });
  const { schema, example } = answer(status, ok.message);
  return {
    ...rest,
    description,
    security: SECURITY[access],
    success: { status, description: `Message \`${ok.message}\`.`, schema, example, ...(ok.headers ? { headers: ok.headers } : {}) },
    ...(alsoOk ? { alsoSuccess: { status: alsoOk.status, description: `Message \`${alsoOk.message}\`.`, ...answer(alsoOk.status, alsoOk.message) } } : {}),
    errorStyle: 'envelope',
    errors: table,
  };
}
