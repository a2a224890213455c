import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import pg from 'pg';
import { Redis } from 'ioredis';
import { summarizeStatement } from './sql-summary';

/**
 * CLIENT spans for every PostgreSQL statement and Redis command made inside a traced request.
 * Require-hook auto-instrumentation does not see modules loaded through Jest's registry (nor
 * through knex's own require of pg once loaded), so the two client classes are wrapped directly,
 * once, and only when tracing is registered: with tracing off nothing here is ever installed.
 *
 * A statement or command outside a recording span (pool housekeeping, BullMQ's blocking reads,
 * the change bus) gets no span, so traces hold only what a request caused. Statement text is
 * recorded as written (placeholders, never the bound values); Redis spans carry the command name
 * only, because keys and values hold session ids and sealed wallet tokens.
 */

const dbTracer = trace.getTracer('relay-postgresql');
const redisTracer = trace.getTracer('relay-redis');
const MAX_STATEMENT_CHARS = 2048;

let installed = false;

export function installInstrumentation(): void {
  if (installed) return;
  installed = true;
  instrumentPostgres();
  instrumentRedis();
}

export function instrumentationInstalled(): boolean {
  return installed;
}

/** The active span, when it records: the only case in which a child span is worth making. */
function recordingParent() {
  const parent = context.active();
  return trace.getSpan(parent)?.isRecording() ? parent : null;
}

function endSpan(span: Span, err?: unknown): void {
  if (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as { code?: string }).code });
  }
  span.end();
}

type QueryArgs = unknown[];
type QueryFn = (this: pg.Client, ...args: QueryArgs) => unknown;

function instrumentPostgres(): void {
  const proto = pg.Client.prototype as unknown as { query: QueryFn };
  const original = proto.query;
  proto.query = function tracedQuery(this: pg.Client, ...args: QueryArgs): unknown {
    const parent = recordingParent();
    const first = args[0] as { text?: unknown; submit?: unknown } | string | undefined;
    // Streams and cursors (a Submittable) report their own end; none is used on a traced path.
    if (!parent || (typeof first === 'object' && first !== null && typeof first.submit === 'function')) return original.apply(this, args);
    const text = typeof first === 'string' ? first : typeof first?.text === 'string' ? first.text : '';
    // Named by what it does to which table (`INSERT transactions`), not by its first word (`WITH`).
    const { summary, operation, collection } = summarizeStatement(text);
    const span = dbTracer.startSpan(
      summary,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'postgresql',
          'db.operation.name': operation,
          'db.query.summary': summary,
          ...(collection ? { 'db.collection.name': collection } : {}),
          'db.namespace': this.database ?? '',
          'db.query.text': text.length > MAX_STATEMENT_CHARS ? `${text.slice(0, MAX_STATEMENT_CHARS)}...` : text,
          'server.address': this.host ?? '',
          'server.port': this.port ?? 5432,
        },
      },
      parent,
    );
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      // knex's form: query(config, callback)
      args[args.length - 1] = function (this: unknown, err: unknown, result: unknown) {
        endSpan(span, err);
        return (last as (e: unknown, r: unknown) => unknown).call(this, err, result);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args) as Promise<unknown>;
    result.then(
      () => endSpan(span),
      (err: unknown) => endSpan(span, err),
    );
    return result;
  };
}

interface RedisCommand {
  name: string;
  promise: Promise<unknown>;
}
type SendCommand = (this: Redis, command: RedisCommand, ...rest: unknown[]) => unknown;

function instrumentRedis(): void {
  const proto = Redis.prototype as unknown as { sendCommand: SendCommand };
  const original = proto.sendCommand;
  proto.sendCommand = function tracedSendCommand(this: Redis, command: RedisCommand, ...rest: unknown[]): unknown {
    const parent = recordingParent();
    if (!parent || !command?.promise) return original.call(this, command, ...rest);
    const operation = String(command.name).toUpperCase();
    const span = redisTracer.startSpan(
      `redis ${operation}`,
      { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'redis', 'db.operation.name': operation } },
      parent,
    );
    command.promise.then(
      () => endSpan(span),
      (err: unknown) => endSpan(span, err),
    );
    return original.call(this, command, ...rest);
  };
}
