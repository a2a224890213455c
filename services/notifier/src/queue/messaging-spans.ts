import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { tracer } from '@relay/shared';
import { ROUND_ENDED_QUEUE } from './round-ended-queue';

/**
 * OpenTelemetry messaging spans of the round-ended queue (semantic conventions: messaging.system,
 * messaging.destination.name, messaging.operation.type and .name, messaging.message.id): one
 * PRODUCER span per job queued, whose context travels in the job, and the worker's CONSUMER span
 * continuing it. The trace reads request -> send round-ended -> process round-ended -> casino call.
 */

const producerTracer = tracer('notifier-queue');

export function messagingAttributes(operation: 'send' | 'process', jobId: string | undefined): Record<string, string> {
  return {
    'messaging.system': 'bullmq',
    'messaging.destination.name': ROUND_ENDED_QUEUE,
    'messaging.operation.type': operation,
    'messaging.operation.name': operation === 'send' ? 'add' : 'process',
    ...(jobId ? { 'messaging.message.id': jobId } : {}),
  };
}

export interface ProducerSpan {
  /** W3C trace context of this job's PRODUCER span, carried in the job for the worker. */
  carrier: Record<string, string>;
  end(error?: Error): void;
}

/** Starts the PRODUCER span of one job, as a child of the active span (the request's fan-out). */
export function startProducerSpan(jobId: string, attributes: Record<string, string> = {}): ProducerSpan {
  const parent = context.active();
  const span: Span = producerTracer.startSpan(`send ${ROUND_ENDED_QUEUE}`, { kind: SpanKind.PRODUCER, attributes: { ...messagingAttributes('send', jobId), ...attributes } }, parent);
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), carrier);
  return {
    carrier,
    end: (error?: Error) => {
      if (error) {
        span.recordException(error);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}
