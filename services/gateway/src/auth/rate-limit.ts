import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from '@relay/shared';

/**
 * Requests per second per game provider across all gateways (README, Configuration), counted in Redis so
 * every gateway instance shares one budget. If Redis is unreachable the limiter falls back to a
 * per-process budget rather than refusing games or letting them run unbounded.
 */
export class ProviderRateLimiter {
  private readonly limiters = new Map<number, RateLimiterRedis>();

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly defaultLimit: number,
  ) {}

  /** Returns null when allowed, or the seconds to wait before retrying. */
  async consume(groupId: string, ownLimit: number | null): Promise<number | null> {
    const limit = ownLimit ?? this.defaultLimit;
    if (limit === 0) return null;
    try {
      await this.limiter(limit).consume(groupId, 1);
      return null;
    } catch (res) {
      if (res instanceof RateLimiterRes) return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      return null;
    }
  }

  private limiter(points: number): RateLimiterRedis {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `${this.keyPrefix}:rl:${points}`,
        points,
        duration: 1,
        insuranceLimiter: new RateLimiterMemory({ points, duration: 1 }),
      });
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}
