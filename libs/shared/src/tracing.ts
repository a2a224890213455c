import { context, propagation, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';

/**
 * Services start spans through the OpenTelemetry API only; with no SDK registered (no OTEL_*
 * configuration) every call here is a no-op costing next to nothing.
 */
export function tracer(name: string): Tracer {
  return trace.getTracer(`relay-${name}`);
}

export async function inSpan<T>(t: Tracer, name: string, attributes: Record<string, string | number | boolean>, fn: (span: Span) => Promise<T>): Promise<T> {
  return t.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** W3C trace context of the active span, as headers for an outgoing call or a job payload. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

export function extractTraceContext(carrier: Record<string, string | string[] | undefined>) {
  return propagation.extract(context.active(), carrier);
}
