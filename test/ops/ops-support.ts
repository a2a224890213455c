import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { registerTracing, type Telemetry } from '@relay/shared';

/**
 * Helpers of the operations tests: an in-memory trace exporter registered the way the services
 * register the real one, and a tiny casino wallet that records the headers it received (the
 * sandbox records bodies only).
 */

export interface SpanCapture {
  exporter: InMemorySpanExporter;
  telemetry: Telemetry;
  /** Finished spans of one trace. */
  trace(traceId: string): ReadableSpan[];
}

/** Every service of this test process reports to this one provider (CI sees every span). */
export async function captureSpans(): Promise<SpanCapture> {
  const exporter = new InMemorySpanExporter();
  const telemetry = await registerTracing({ serviceName: 'relay-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    exporter,
    telemetry,
    trace: (traceId) => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId),
  };
}

export function scopeOf(span: ReadableSpan): string {
  return span.instrumentationScope.name;
}

export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

export function idOf(span: ReadableSpan): string {
  return span.spanContext().spanId;
}

export async function waitFor<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface RecordedCall {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface HeaderCasino {
  url: string;
  calls: RecordedCall[];
  close(): Promise<void>;
}

export type CasinoAnswerFn = (call: RecordedCall) => { status: number; body: unknown } | undefined;

/**
 * A casino wallet that accepts every call (no signature check) and keeps each call's headers;
 * `answer` may script a different answer for some calls.
 */
export async function startHeaderCasino(balance = 90, answer?: CasinoAnswerFn): Promise<HeaderCasino> {
  const calls: RecordedCall[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        body = {};
      }
      const call = { path: req.url ?? '', headers: req.headers, body };
      calls.push(call);
      const scripted = answer?.(call);
      const reply = scripted ?? { status: 200, body: req.url?.endsWith('/round-ended') ? { ok: true } : { balance, username: 'player' } };
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/wallet`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The trace id and parent span id of a W3C traceparent header. */
export function parseTraceparent(value: string | string[] | undefined): { traceId: string; parentId: string } | null {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(typeof value === 'string' ? value : '');
  return match ? { traceId: match[1], parentId: match[2] } : null;
}
