import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError, type Config, type Redis } from '@relay/shared';

/**
 * Failed sign-in attempts, counted per account (by the email typed, known or not, so the answer
 * tells nothing about whether it exists) and per client address. Past the limit every attempt
 * is refused with 429 and Retry-After until the lock-out ends, whether the password is right or not.
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

  /** Refuses the attempt up front while either counter is locked out. */
  async assertAllowed(accountKey: string, address: string): Promise<void> {
    const [account, addr] = await Promise.all([this.perAccount.get(accountKey), this.perAddress.get(address)]);
    const waits = [
      lockedFor(account, this.perAccount.points),
      lockedFor(addr, this.perAddress.points),
    ].filter((w): w is number => w !== null);
    if (waits.length > 0) throw lockedOut(Math.max(...waits));
  }

  async failed(accountKey: string, address: string): Promise<void> {
    await Promise.all([
      this.perAccount.penalty(accountKey, 1).then((r) => (r.consumedPoints >= this.perAccount.points ? this.perAccount.block(accountKey, this.perAccount.blockDuration) : null)),
      this.perAddress.penalty(address, 1).then((r) => (r.consumedPoints >= this.perAddress.points ? this.perAddress.block(address, this.perAddress.blockDuration) : null)),
    ]);
  }

  /** A successful sign-in clears its account's count (never the address's: one good account must not unlock guessing at others). */
  async succeeded(accountKey: string): Promise<void> {
    await this.perAccount.delete(accountKey);
  }
}

function lockedFor(res: RateLimiterRes | null, points: number): number | null {
  if (!res || res.consumedPoints < points) return null;
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

function lockedOut(seconds: number): AppError {
  return new AppError('RATE_LIMITED', 'Too many failed sign-in attempts; try again later', { headers: { 'Retry-After': String(seconds) } });
}
