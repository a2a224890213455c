import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per service instance, so several services can share a test process. */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route' | 'status'>;
  private readonly inFlight: Gauge;

  constructor(readonly service: string, options: { defaultMetrics?: boolean } = {}) {
    this.registry.setDefaultLabels({ service });
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [this.registry] });
    this.latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    // The autoscaling signal of services that mostly wait (wallet on casinos, notifier on jobs):
    // their CPU stays low while requests pile up.
    this.inFlight = new Gauge({ name: 'http_requests_in_flight', help: 'Requests being served now (probes and scrapes excluded)', registers: [this.registry] });
  }

  /** Counts a request in flight until the returned function is called (once). */
  requestStarted(): () => void {
    this.inFlight.inc();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight.dec();
    };
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }

  counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A gauge; `collect` runs at every scrape to set it (it may be async). */
  gauge<L extends string>(name: string, help: string, labelNames: L[], collect?: (this: Gauge<L>) => void | Promise<void>): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry], ...(collect ? { collect } : {}) });
  }

  histogram<L extends string>(name: string, help: string, labelNames: L[], buckets?: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, registers: [this.registry], ...(buckets ? { buckets } : {}) });
  }
}
