import pino, { type Logger } from 'pino';
import { trace } from '@opentelemetry/api';
import { currentContext } from './context';

export type { Logger } from 'pino';

/**
 * Secret-bearing fields, wherever they appear in a logged object. A secret must never reach a log
 * line, so these are removed rather than masked.
 */
export const REDACTED_PATHS = [
  'walletToken',
  'walletSecret',
  'launchKey',
  'token',
  'password',
  'authorization',
  'Authorization',
  '*.walletToken',
  '*.walletSecret',
  '*.launchKey',
  '*.token',
  '*.authorization',
  '*.Authorization',
  '*.*.walletToken',
  '*.*.walletSecret',
  '*.*.launchKey',
  '*.*.token',
  'req.headers.authorization',
  'req.headers["x-relay-identity"]',
  'req.query.token',
  'headers.authorization',
  'headers["x-relay-signature"]',
];

export function createLogger(options: { service: string; level?: string; destination?: pino.DestinationStream }): Logger {
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, remove: true },
      formatters: { level: (label) => ({ level: label }) },
      mixin() {
        const ctx = currentContext();
        const span = trace.getActiveSpan()?.spanContext();
        return {
          ...(ctx ? { requestId: ctx.requestId, groupId: ctx.groupId, providerId: ctx.providerId } : {}),
          ...(span && span.traceId !== '00000000000000000000000000000000' ? { traceId: span.traceId } : {}),
        };
      },
    },
    options.destination ?? bufferedStdout(),
  );
  redactObjectsOnly(logger);
  return logger;
}

type Stringifier = (value: unknown, ...rest: unknown[]) => string;

/**
 * pino hands every field of a line that no path names at its top level (the access line's
 * method, route, status, the message itself) to the redactor of the wildcard paths
 * (`*.walletToken`, ...), and that redactor parses each of its paths again on every call: 15-40 us
 * per access line, measured. A string, number or boolean has nothing inside to remove, and the
 * redactor returns it as JSON: so it is written as JSON here, and every object still goes through
 * the same redactor (pino.symbols is pino's public handle on these internals).
 */
function redactObjectsOnly(logger: Logger): void {
  const stringifiers = (logger as unknown as Record<symbol, Record<symbol, Stringifier> | undefined>)[pino.symbols.stringifiersSym];
  const wildcard = stringifiers?.[pino.symbols.wildcardFirstSym];
  if (!stringifiers || typeof wildcard !== 'function') return;
  stringifiers[pino.symbols.wildcardFirstSym] = (value, ...rest) =>
    typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? JSON.stringify(value) : wildcard(value, ...rest);
}

/**
 * Log lines are buffered and written in batches: at most every 200 ms or per 8 KiB, instead of
 * one write(2) per line, which the first benchmark profile showed as the largest CPU cost of a
 * request in the gateway. Buffered lines are flushed on exit (pino registers that).
 */
function bufferedStdout(): pino.DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024 });
  const timer = setInterval(() => {
    try {
      stream.flush();
    } catch {
      // a flush while another write is in progress is retried on the next tick of the timer
    }
  }, 200);
  timer.unref();
  return stream;
}
