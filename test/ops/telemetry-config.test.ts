import { context, trace } from '@opentelemetry/api';
import pg from 'pg';
import { Redis } from 'ioredis';
import { instrumentationInstalled, startServerSpan, startTelemetry, telemetrySettings, tracer } from '@relay/shared';

/**
 * The OTEL_* variables with the spec's semantics, and the path every production process takes
 * when they are unset: no SDK, no patched client, spans that are no-ops. Nothing in this file
 * registers a provider (each Jest file has its own globals), so it sees the unconfigured process.
 */

describe('telemetry settings', () => {
  it('When no OTEL_* variable is set, then tracing is off (README, Configuration: unset means no exporter)', () => {
    expect(telemetrySettings({})).toMatchObject({ enabled: false, exporters: [] });
  });

  it('When an OTLP endpoint is set, then spans go to OTLP', () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toMatchObject({ enabled: true, exporters: ['otlp'] });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toMatchObject({ enabled: true, exporters: ['otlp'] });
  });

  it('When OTEL_TRACES_EXPORTER names exporters, then exactly those run; none turns tracing off even with an endpoint', () => {
    expect(telemetrySettings({ OTEL_TRACES_EXPORTER: 'console' })).toMatchObject({ enabled: true, exporters: ['console'] });
    expect(telemetrySettings({ OTEL_TRACES_EXPORTER: 'otlp, console' })).toMatchObject({ enabled: true, exporters: ['otlp', 'console'] });
    expect(telemetrySettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toMatchObject({ enabled: false });
  });

  it('When OTEL_SDK_DISABLED is true, then tracing is off whatever else is set', () => {
    expect(telemetrySettings({ OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).enabled).toBe(false);
    expect(telemetrySettings({ OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'console' }).enabled).toBe(true);
  });

  it('When an exporter is unknown or the protocol is gRPC, then that is named and the rest still applies', () => {
    const s = telemetrySettings({ OTEL_TRACES_EXPORTER: 'zipkin,otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(s).toMatchObject({ enabled: true, exporters: ['otlp'] });
    expect(s.notes.join('\n')).toMatch(/zipkin/);
    expect(s.notes.join('\n')).toMatch(/grpc/);
    expect(telemetrySettings({ OTEL_TRACES_EXPORTER: 'jaeger' })).toMatchObject({ enabled: false, exporters: [] });
  });
});

describe('tracing off', () => {
  it('When startTelemetry finds no configuration, then no SDK is registered and no client is patched', async () => {
    const queryBefore = pg.Client.prototype.query;
    const sendBefore = Redis.prototype.sendCommand;
    const telemetry = await startTelemetry('relay-test', { env: {} });
    expect(telemetry.enabled).toBe(false);
    await telemetry.shutdown();
    expect(instrumentationInstalled()).toBe(false);
    expect(pg.Client.prototype.query).toBe(queryBefore);
    expect(Redis.prototype.sendCommand).toBe(sendBefore);
    const span = tracer('test').startSpan('nothing');
    expect(span.isRecording()).toBe(false);
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('When tracing is off, then the server span of a request is a non-recording no-op', () => {
    // What the request middleware does per request. Its cost with no SDK (~0.3-0.5 µs in a plain
    // node process) is in docs/deploying.md; a timing bound here would only measure the CI load.
    const headers = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    const { span, ctx } = startServerSpan(tracer('test'), 'POST', headers);
    expect(span.isRecording()).toBe(false);
    expect(span.spanContext().traceId).toBe('00000000000000000000000000000000');
    // No context manager either: entering the request's context stores nothing.
    expect(context.with(ctx, () => trace.getActiveSpan())).toBeUndefined();
    span.end();
  });
});
