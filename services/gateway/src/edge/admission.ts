import { AppError } from '@relay/shared';

/**
 * Admission to one upstream service. The gateway never queues a request behind a full upstream
 * pool: a queued request waits for a socket with its headers already written, and answers late or
 * not at all. Instead a request is admitted only while the upstream has a free socket for it, and
 * one tenant (a game provider, or a client address on public routes) may hold at most its share of
 * those sockets, so a burst or a slow tenant fills its own share and leaves the rest to the others.
 * Beyond its share a tenant gets `429`; when the upstream is full, everyone gets a fast `503`; both
 * with `Retry-After`, never a dropped socket.
 */
export class UpstreamAdmission {
  private inFlight = 0;
  private readonly perTenant = new Map<string, number>();
  readonly tenantLimit: number;

  constructor(
    readonly service: string,
    readonly capacity: number,
    tenantShare: number,
  ) {
    this.tenantLimit = Math.max(1, Math.floor(capacity * tenantShare));
  }

  /** Takes a slot for `tenant`, or throws the overload answer. The release runs once. */
  admit(tenant: string): () => void {
    const held = this.perTenant.get(tenant) ?? 0;
    if (held >= this.tenantLimit) {
      throw new AppError('RATE_LIMITED', 'Too many requests in flight for this caller; repeat the request shortly', { headers: { 'Retry-After': '1' } });
    }
    if (this.inFlight >= this.capacity) {
      throw new AppError('SERVICE_UNAVAILABLE', 'The relay is at capacity; repeat the request shortly', { headers: { 'Retry-After': '1' } });
    }
    this.inFlight++;
    this.perTenant.set(tenant, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      const left = (this.perTenant.get(tenant) ?? 1) - 1;
      if (left <= 0) this.perTenant.delete(tenant);
      else this.perTenant.set(tenant, left);
    };
  }

  get current(): number {
    return this.inFlight;
  }
}

/**
 * One admitted request's hold on its slot. The slot stands for a socket to the service, so it is
 * given back when the answer to the caller is over AND the request to the service is too, not
 * when the caller hangs up: a caller that leaves while the service is still working (a slow casino
 * behind a money call) would otherwise get its slot back while the socket stays busy, and could
 * hold every socket of the service while the admission counted none. The request to the service is
 * not cut either: the money call it carries runs to its end and is recorded. `backstopMs` bounds a
 * hold whose request never reported back (longer than the proxy's own time-out).
 */
export class UpstreamSlot {
  private clientDone = false;
  private upstream: 'none' | 'starting' | 'open' | 'done' = 'none';
  private backstop: NodeJS.Timeout | null = null;

  constructor(
    private readonly release: () => void,
    private readonly backstopMs: number,
  ) {}

  /** The forwarded request is about to be created. */
  starting(): void {
    if (this.upstream === 'none') this.upstream = 'starting';
  }

  /** The forwarded request has its socket; the slot is held until it closes. */
  opened(request: { once(event: 'close', listener: () => void): unknown }): void {
    if (this.upstream === 'done') return;
    this.upstream = 'open';
    request.once('close', () => this.upstreamDone());
  }

  /** The forwarded request closed or failed (or was never sent). */
  upstreamDone(): void {
    this.upstream = 'done';
    this.settle();
  }

  /** The answer to the caller is over (sent, or the caller hung up). */
  callerDone(): void {
    this.clientDone = true;
    this.settle();
    if (!this.backstop && this.upstream !== 'done' && this.upstream !== 'none') {
      this.backstop = setTimeout(() => this.upstreamDone(), this.backstopMs);
      this.backstop.unref();
    }
  }

  private settle(): void {
    if (!this.clientDone || this.upstream === 'starting' || this.upstream === 'open') return;
    if (this.backstop) clearTimeout(this.backstop);
    this.release();
  }
}
