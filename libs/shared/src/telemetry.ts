import { readFileSync } from 'node:fs';
import path from 'node:path';
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Logger } from './logger';
import { installInstrumentation } from './telemetry-instrumentation';

/**
 * The OpenTelemetry SDK, started from the standard OTEL_* variables (README, Configuration: unset, no
 * exporter). Off, nothing of the SDK is even loaded: the API stays a no-op, no module is patched,
 * and every span call in the code costs a function call.
 */

export type TraceExporterName = 'otlp' | 'console';

export interface TelemetrySettings {
  enabled: boolean;
  exporters: TraceExporterName[];
  /** Why tracing is off, or what was ignored: logged once at start. */
  notes: string[];
}

const KNOWN_EXPORTERS = new Set<string>(['otlp', 'console', 'none']);

/**
 * Spec semantics, with one deliberate difference: the spec's default OTEL_TRACES_EXPORTER is
 * `otlp`, but here an unset variable means "no exporter" unless an OTLP endpoint says where to
 * send (README, Configuration), so a local run never tries to reach a collector that is not there.
 *  - OTEL_SDK_DISABLED=true: off, whatever else is set.
 *  - OTEL_TRACES_EXPORTER: comma-separated `otlp`, `console`; `none` (alone or not) turns it off.
 *  - OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: implies `otlp`.
 * The rest (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER[_ARG], OTEL_BSP_*,
 * OTEL_EXPORTER_OTLP_HEADERS, ...) is read by the SDK itself.
 */
export function telemetrySettings(env: NodeJS.ProcessEnv = process.env): TelemetrySettings {
  const value = (name: string) => (env[name] ?? '').trim();
  const notes: string[] = [];
  if (value('OTEL_SDK_DISABLED').toLowerCase() === 'true') return { enabled: false, exporters: [], notes: ['OTEL_SDK_DISABLED=true'] };

  const endpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') || value('OTEL_EXPORTER_OTLP_ENDPOINT');
  const listed = value('OTEL_TRACES_EXPORTER');
  const names = listed ? listed.split(',').map((n) => n.trim().toLowerCase()).filter(Boolean) : endpoint ? ['otlp'] : [];
  for (const n of names) if (!KNOWN_EXPORTERS.has(n)) notes.push(`OTEL_TRACES_EXPORTER: unsupported exporter "${n}" ignored`);
  if (names.includes('none')) return { enabled: false, exporters: [], notes: [...notes, 'OTEL_TRACES_EXPORTER=none'] };

  const exporters = [...new Set(names.filter((n): n is TraceExporterName => n === 'otlp' || n === 'console'))];
  if (exporters.includes('otlp') && value('OTEL_EXPORTER_OTLP_PROTOCOL').toLowerCase() === 'grpc') {
    notes.push('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; traces are sent as OTLP/HTTP (port 4318 on a collector)');
  }
  if (exporters.length === 0) notes.push('no OTEL_* trace exporter configured: tracing is off');
  return { enabled: exporters.length > 0, exporters, notes };
}

export interface Telemetry {
  enabled: boolean;
  /** Exports what is still buffered, then stops. Safe to call when tracing is off. */
  shutdown(): Promise<void>;
}

const OFF: Telemetry = { enabled: false, shutdown: async () => undefined };

export interface TracingRegistration {
  /** Default service.name; OTEL_SERVICE_NAME or service.name in OTEL_RESOURCE_ATTRIBUTES win. */
  serviceName: string;
  spanProcessors: SpanProcessor[];
}

/**
 * Registers a tracer provider globally (W3C trace context and baggage propagation, async-local
 * context) and the PostgreSQL and Redis spans. Tests call it with an in-memory exporter: every
 * service of the test process then reports to that one provider.
 */
export async function registerTracing(options: TracingRegistration): Promise<Telemetry> {
  const [{ NodeTracerProvider }, { defaultResource, detectResources, envDetector, resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
  ]);
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': options.serviceName, 'service.namespace': 'relay', ...releaseAttributes() }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: options.spanProcessors });
  provider.register();
  installInstrumentation();
  return { enabled: true, shutdown: () => provider.shutdown() };
}

/**
 * service.version (the platform's release, from the root package.json, which every install and
 * image has) and the deployment environment: DEPLOYMENT_ENVIRONMENT, else NODE_ENV. Both under the
 * current name (deployment.environment.name) and the one older backends read (deployment.environment).
 * OTEL_RESOURCE_ATTRIBUTES still overrides either.
 */
export function releaseAttributes(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const environment = env.DEPLOYMENT_ENVIRONMENT || env.NODE_ENV || 'development';
  return { 'service.version': platformVersion(), 'deployment.environment.name': environment, 'deployment.environment': environment };
}

let version: string | undefined;
function platformVersion(): string {
  if (version === undefined) {
    try {
      // libs/shared/{src,dist}/telemetry -> the repository root.
      version = (JSON.parse(readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
    } catch {
      version = 'unknown';
    }
  }
  return version;
}

/**
 * Called first thing by every process entry (serviceMain, the notifier worker): reads the
 * settings, logs what it decided, and starts the exporters. Spans are batched (OTEL_BSP_*), so
 * a request never waits for the collector.
 */
export async function startTelemetry(serviceName: string, options: { env?: NodeJS.ProcessEnv; logger?: Logger } = {}): Promise<Telemetry> {
  const settings = telemetrySettings(options.env ?? process.env);
  const logger = options.logger;
  for (const note of settings.notes) logger?.info({ telemetry: note }, 'tracing configuration');
  if (!settings.enabled) return OFF;
  if (logger) diag.setLogger(diagLogger(logger), DiagLogLevel.WARN);

  const { BatchSpanProcessor, SimpleSpanProcessor, ConsoleSpanExporter } = await import('@opentelemetry/sdk-trace-base');
  const processors: SpanProcessor[] = [];
  if (settings.exporters.includes('otlp')) {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
  }
  // Debugging only: one multi-line object per span on stdout, between the JSON log lines.
  if (settings.exporters.includes('console')) processors.push(new SimpleSpanProcessor(new ConsoleSpanExporter()));
  const telemetry = await registerTracing({ serviceName, spanProcessors: processors });
  logger?.info({ exporters: settings.exporters }, 'tracing started');
  return telemetry;
}

/**
 * The SDK's own complaints (an unreachable collector, a bad variable) as log lines. They run on
 * the exporter's timers, which may have been created inside some request: the request's ids are
 * cleared so the line is not attributed to it.
 */
function diagLogger(logger: Logger): DiagLogger {
  const unrelated = { requestId: undefined, groupId: undefined, providerId: undefined, traceId: undefined };
  const log = (level: 'error' | 'warn' | 'info' | 'debug') => (message: string, ...args: unknown[]) =>
    logger[level]({ ...unrelated, ...(args.length ? { otel: args.map(describe).join(' ') } : {}) }, `opentelemetry: ${describe(message)}`);
  return { error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug'), verbose: log('debug') };
}

/** The exporter reports errors as their JSON text: keep the message, not the stack. */
function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  const text = String(value);
  if (!text.startsWith('{')) return text;
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : text;
  } catch {
    return text;
  }
}
