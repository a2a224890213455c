import pino from 'pino';
import type { Request } from 'express';
import { MAX_JSON_DEPTH, refuseUnsafeInput, toAppError } from './http';

describe('toAppError', () => {
  const logger = pino({ level: 'silent' });

  it('When PostgreSQL or Redis is unreachable or restarting, then the answer is 503 with Retry-After, not a 500', () => {
    const outages = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }),
      new Error('Connection terminated unexpectedly'),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
    ];
    for (const err of outages) {
      const mapped = toAppError(err, logger);
      expect({ message: err.message, code: mapped.code, status: mapped.status }).toEqual({ message: err.message, code: 'SERVICE_UNAVAILABLE', status: 503 });
      expect(mapped.headers['Retry-After']).toBe('1');
    }
  });

  it('When an unknown error happens, then it stays a generic 500 without details', () => {
    const mapped = toAppError(new TypeError('x is undefined'), logger);
    expect(mapped.code).toBe('INTERNAL_ERROR');
    expect(mapped.message).toBe('Internal error');
  });
});

describe('refuseUnsafeInput', () => {
  const run = (body: unknown, query: unknown = {}) => {
    let passed: unknown = 'not called';
    refuseUnsafeInput({ body, query } as Request, {} as never, (err?: unknown) => (passed = err));
    return passed as { code?: string; message?: string } | undefined;
  };
  const nested = (depth: number) => JSON.parse('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

  it('When a body is nested up to the limit, then it passes; one level deeper, then 400 Bad Request', () => {
    expect(run(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(run(nested(MAX_JSON_DEPTH + 1))).toMatchObject({ code: 'Bad Request' });
  });

  it('When a NUL hides in a value, a key or the query, then 400 Bad Request', () => {
    expect(run({ a: ['x', 'y\u0000'] })).toMatchObject({ code: 'Bad Request' });
    expect(run({ ['k\u0000']: 1 })).toMatchObject({ code: 'Bad Request' });
    expect(run(undefined, { sessionId: 'a\u0000' })).toMatchObject({ code: 'Bad Request' });
    expect(run({ a: 'plain ✓ text' })).toBeUndefined();
  });

  it('When text holds an unpaired surrogate in a value, a key or the query, then 400 Bad Request; a paired one passes', () => {
    expect(run({ transactionId: 'bet-\ud800' })).toMatchObject({ code: 'Bad Request', message: expect.stringContaining('well-formed') });
    expect(run({ a: ['x', '\udc00y'] })).toMatchObject({ code: 'Bad Request' });
    expect(run({ ['k\ud800']: 1 })).toMatchObject({ code: 'Bad Request' });
    expect(run(undefined, { sessionId: 'a\udfff' })).toMatchObject({ code: 'Bad Request' });
    expect(run({ a: 'emoji 😀 \ud83d\ude00' })).toBeUndefined();
  });
});
