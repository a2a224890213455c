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
