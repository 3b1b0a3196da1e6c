import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisConnection } from '../../kernel/redis.js';
import type { Logger } from '../../kernel/sdk.js';
import { ShareAttemptsLimitedError } from './errors.js';

/**
 * Wrong-password attempts per share link (keyed by the link's token hash, never the token): in memory,
 * or in Redis so every instance counts together (memory takes over while Redis is unreachable). Once
 * a link has used its attempts, every try answers 429 with the real Retry-After, the right password too.
 */
export class ShareAttempts {
  private limiter: RateLimiterAbstract;
  private readonly common: { points: number; duration: number; keyPrefix: string };

  constructor(
    private readonly points: number,
    durationSeconds: number,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.common = { points, duration: durationSeconds, keyPrefix: `${prefix}:media-share` };
    this.limiter = new RateLimiterMemory(this.common);
  }

  /** Counts in Redis from now on (boot, when REDIS_URL or REDIS_SENTINELS is set). */
  useRedis(redis: RedisConnection): void {
    this.limiter = new RateLimiterRedis({
      ...this.common,
      storeClient: redis,
      useRedisPackage: true,
      insuranceLimiter: new RateLimiterMemory(this.common),
    });
  }

  async check(linkId: string): Promise<void> {
    let res;
    try {
      res = await this.limiter.get(linkId);
    } catch (err) {
      this.logger.error({ err }, 'share attempt counter unavailable; attempt allowed');
      return;
    }
    if (res && res.consumedPoints >= this.points) throw new ShareAttemptsLimitedError(res.msBeforeNext / 1000);
  }

  async failed(linkId: string): Promise<void> {
    await this.limiter.consume(linkId).catch(() => undefined);
  }
}
