import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError, type Config, type Redis } from '@relay/shared';

/**
 * Sign-in attempts, counted per account (by the email typed, known or not, so the answer tells
 * nothing about whether it exists) and per client address. Every attempt is counted before it is
 * weighed and a successful one gives its point back, so the counts are of failures. Past the
 * limit every attempt is refused with 429 and Retry-After until the lock-out ends, whether the
 * password is right or not.
 */
export class SignInAttempts {
  private readonly perAccount: RateLimiterRedis;
  private readonly perAddress: RateLimiterRedis;

  constructor(redis: Redis, config: Config) {
    const duration = config.SIGNIN_LOCKOUT_SECONDS;
    const common = { storeClient: redis, duration, blockDuration: duration, useRedisPackage: false };
    this.perAccount = new RateLimiterRedis({ ...common, keyPrefix: `${config.REDIS_KEY_PREFIX}:bo:signin-account`, points: config.SIGNIN_MAX_FAILURES_PER_ACCOUNT });
    this.perAddress = new RateLimiterRedis({ ...common, keyPrefix: `${config.REDIS_KEY_PREFIX}:bo:signin-address`, points: config.SIGNIN_MAX_FAILURES_PER_ADDRESS });
  }

  /**
   * Takes one attempt from both counters atomically (INCR in Redis) before anything is weighed,
   * and refuses it with 429 once either is past its limit. Checking first and counting after the
   * answer let parallel guesses all pass the check before any of them was counted.
   */
  async take(accountKey: string, address: string): Promise<void> {
    const [account, addr] = await Promise.all([this.perAccount.penalty(accountKey, 1), this.perAddress.penalty(address, 1)]);
    const waits: number[] = [];
    if (account.consumedPoints > this.perAccount.points) waits.push(await this.lock(this.perAccount, accountKey, account));
    if (addr.consumedPoints > this.perAddress.points) waits.push(await this.lock(this.perAddress, address, addr));
    if (waits.length > 0) throw lockedOut(Math.max(...waits));
  }

  /**
   * A successful attempt gives its address point back and clears its account's count (never the
   * address's whole count: one good account must not unlock guessing at others).
   */
  async succeeded(accountKey: string, address: string): Promise<void> {
    await Promise.all([this.perAccount.delete(accountKey), this.perAddress.reward(address, 1)]);
  }

  /** A right password gives back the point it took; failures so far stay counted until the second factor passes. */
  async passwordAccepted(accountKey: string, address: string): Promise<void> {
    await Promise.all([this.perAccount.reward(accountKey, 1), this.perAddress.reward(address, 1)]);
  }

  private async lock(limiter: RateLimiterRedis, key: string, res: RateLimiterRes): Promise<number> {
    // The first attempt over the limit starts the lock-out; later ones only read how long is left.
    if (res.consumedPoints === limiter.points + 1) {
      await limiter.block(key, limiter.blockDuration);
      return limiter.blockDuration;
    }
    return lockedFor(res, limiter.points) ?? limiter.blockDuration;
  }
}

function lockedFor(res: RateLimiterRes | null, points: number): number | null {
  if (!res || res.consumedPoints < points) return null;
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

function lockedOut(seconds: number): AppError {
  return new AppError('RATE_LIMITED', 'Too many failed sign-in attempts; try again later', { headers: { 'Retry-After': String(seconds) } });
}
