import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';

/**
 * Services start spans through the OpenTelemetry API only; with no SDK registered (no OTEL_*
 * configuration) every call here is a no-op costing next to nothing.
 */
export function tracer(name: string): Tracer {
  return trace.getTracer(`relay-${name}`);
}

export async function inSpan<T>(
  t: Tracer,
  name: string,
  attributes: Record<string, string | number | boolean>,
  fn: (span: Span) => Promise<T>,
  options: { kind?: SpanKind } = {},
): Promise<T> {
  return t.startActiveSpan(name, { attributes, kind: options.kind }, async (span) => {
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

/**
 * The SERVER span of one incoming request and the context to run the request in. Inside the
 * platform the caller's W3C trace context is continued, so the gateway, the service and its
 * database, Redis and casino spans form one trace. At the public edge (`publicEdge`) a caller's
 * traceparent is only linked: outsiders must not choose our trace ids or our sampling decision.
 */
export function startServerSpan(
  t: Tracer,
  method: string,
  headers: Record<string, string | string[] | undefined>,
  publicEdge = false,
): { span: Span; ctx: Context } {
  const incoming = propagation.extract(ROOT_CONTEXT, headers);
  const remote = trace.getSpanContext(incoming);
  const parent = publicEdge ? ROOT_CONTEXT : incoming;
  const span = t.startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      // No url.path: paths carry session ids. The span is named after its route template at the end.
      attributes: { 'http.request.method': method },
      ...(publicEdge && remote ? { links: [{ context: remote }] } : {}),
    },
    parent,
  );
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Names the server span after the matched route and records the answer's status. */
export function endServerSpan(span: Span, method: string, route: string, status: number): void {
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
