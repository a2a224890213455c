import { ERROR_STATUS, type ErrorCode } from '@relay/shared';
import type { JsonSchema } from './schema';

/**
 * Error answers of the documents, built from the platform's one error model (libs/shared errors):
 * a code listed under a status it does not have fails the generator, so the reference cannot
 * promise a status the services never send.
 */
export type ErrorStyle = 'envelope' | 'wallet';
export type ErrorTable = Partial<Record<number, { codes: ErrorCode[]; description: string }>>;

/** Codes whose answer says when to repeat: always for these two, when known for an outage. */
const RETRY_ALWAYS = new Set<ErrorCode>(['RATE_LIMITED', 'TRANSACTION_IN_FLIGHT']);

function retryAfter(codes: ErrorCode[]) {
  if (!codes.some((c) => RETRY_ALWAYS.has(c) || c === 'SERVICE_UNAVAILABLE')) return {};
  const required = codes.every((c) => RETRY_ALWAYS.has(c));
  return {
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before repeating the identical request.',
        required,
        schema: { type: 'string', pattern: '^\\d+$' },
      },
    },
  };
}

/** `html`: the route answers a browser that prefers HTML with a page of the same status (the launch). */
export function errorResponses(style: ErrorStyle, table: ErrorTable, html = false): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [statusText, entry] of Object.entries(table)) {
    if (!entry) continue;
    const status = Number(statusText);
    for (const code of entry.codes) {
      if (ERROR_STATUS[code] !== status) throw new Error(`${code} is answered with ${ERROR_STATUS[code]}, not ${status}`);
    }
    responses[statusText] = {
      description: `${entry.description} Codes: ${entry.codes.map((c) => `\`${c}\``).join(', ')}.`,
      ...retryAfter(entry.codes),
      content: {
        'application/json': { schema: errorBody(style, entry.codes), example: errorExample(style, status, entry.codes[0]) },
        ...(html ? { 'text/html': { schema: { type: 'string', description: 'A short page naming the code.' } } } : {}),
      },
    };
  }
  return responses;
}

function errorBody(style: ErrorStyle, codes: ErrorCode[]): JsonSchema {
  const ref = { $ref: style === 'envelope' ? '#/components/schemas/EnvelopeError' : '#/components/schemas/WalletError' };
  return { allOf: [ref, { properties: { error: { enum: codes } } }] };
}

function errorExample(style: ErrorStyle, status: number, code: ErrorCode) {
  const message = code === 'Bad Request' ? 'Validation failed: amount: must be a non-negative number with at most 2 decimals' : messageFor(code);
  if (style === 'wallet') return { error: code, message };
  return {
    statusCode: status,
    message,
    error: code,
    data: null,
    ...(code === 'Bad Request' ? { details: [{ path: 'amount', message: 'must be a non-negative number with at most 2 decimals' }] } : {}),
  };
}

function messageFor(code: ErrorCode): string {
  return code.charAt(0) + code.slice(1).toLowerCase().replace(/_/g, ' ');
}

/** The two error bodies, shared by every document that uses them. */
export const ERROR_SCHEMAS: Record<string, JsonSchema> = {
  WalletError: {
    type: 'object',
    description: 'Error body of the wallet-style routes (no version segment) and of the launch route.',
    properties: {
      error: { type: 'string', description: 'The error code; the client branches on this, never on the message.' },
      message: { type: 'string', description: 'Human-readable text; never carries a secret.' },
    },
    required: ['error'],
    additionalProperties: false,
  },
  EnvelopeError: {
    type: 'object',
    description: 'Error body of every envelope route (`/api/v1/...`, `/admin/v1/...`).',
    properties: {
      statusCode: { type: 'integer', description: 'The HTTP status, repeated.' },
      message: { type: 'string', description: 'Human-readable text; never carries a secret or a stack trace.' },
      error: { type: 'string', description: 'The error code (`Bad Request` for a validation failure).' },
      data: { description: 'null, or what the code needs to explain itself (the casinos a refused template change would break).' },
      details: {
        type: 'array',
        description: 'With `Bad Request`: each field that failed and why.',
        items: {
          type: 'object',
          properties: { path: { type: 'string' }, message: { type: 'string' } },
          required: ['path', 'message'],
          additionalProperties: false,
        },
      },
    },
    required: ['statusCode', 'message', 'error', 'data'],
    additionalProperties: false,
  },
};
