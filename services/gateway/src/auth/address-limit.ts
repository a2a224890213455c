import { RateLimiterMemory } from 'rate-limiter-flexible';
import { AppError } from '@relay/shared';

/**
 * Failed authentications per client address, counted in this gateway's memory (no Redis round
 * trip on the path an attacker controls). Known tokens are answered from the token cache and never
 * come here; an unknown token costs a database lookup, so an address that keeps presenting unknown
 * tokens is cut off before the database until its window passes. A limit of 0 turns this off.
 */
export class AuthFailureLimit {
  private readonly failures: RateLimiterMemory | null;

  constructor(perMinute: number) {
    this.failures = perMinute > 0 ? new RateLimiterMemory({ points: perMinute, duration: 60 }) : null;
  }

  /** Throws 429 when `address` has used up its failures; call before an uncached lookup. */
  async check(address: string): Promise<void> {
    if (!this.failures) return;
    const state = await this.failures.get(address);
    if (state && state.remainingPoints <= 0) {
      const wait = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
      throw new AppError('RATE_LIMITED', 'Too many failed authentications from this address', { headers: { 'Retry-After': String(wait) } });
    }
  }

  /** Counts one failed authentication of `address`. */
  async failed(address: string): Promise<void> {
    if (!this.failures) return;
    await this.failures.penalty(address, 1);
  }
}
