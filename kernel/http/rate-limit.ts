import type { Context, Next } from 'koa';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisConnection } from '../redis.js';
import { RateLimitedError } from '../errors.js';
import type { Logger } from '../logger.js';
import { clientIdOf, type ClientCookieSecrets } from './client-cookie.js';
import type { RouteMatch } from './router.js';

/** Case, trailing slash and the /api/v1 alias do not make a different key. */
export function normalisePath(path: string): string {
  let p = path.toLowerCase().replace(/\/{2,}/g, '/');
  if (p.startsWith('/api/v1/') || p === '/api/v1') p = `/api${p.slice(7)}`;
  if (p.length > 1) p = p.replace(/\/+$/, '');
  return p || '/';
}

export interface RateLimitOptions {
  enabled: boolean;
  points: number;
  durationSeconds: number;
  redis?: RedisConnection | null;
  prefix: string;
  logger: Logger;
  /** Read per request (setup fills them in): the key of the signed client cookie. */
  secrets: ClientCookieSecrets;
}

/**
 * Rate limiting with rate-limiter-flexible: in memory, or in Redis so every instance shares the
 * counters (with an in-memory insurance limiter that takes over while Redis is unreachable). The key
 * is the client IP + the normalised path: for a matched route its template (`/api/token/:tokenValue`),
 * so case, trailing slash, /api/v1, doubled slashes and parameter spellings (`/items/1`, `/items/01`,
 * `/items/%31`) share one counter and no parameter value (a token) ever becomes part of a key; all
 * unmatched paths share one bucket. 429 RATE_LIMITED with Retry-After: 60. A route may declare its own
 * limit or opt out, and a per-client limit (clientPoints) counted under the signed client cookie.
 */
export function rateLimiter(options: RateLimitOptions) {
  const limit = rateLimit(options);
  return async function limitRate(ctx: Context, next: Next): Promise<void> {
    await limit(ctx);
    return next();
  };
}

/** rateLimiter's check of one request (the kernel's compiled stage calls it directly): undefined when nothing applies. */
export function rateLimit(options: RateLimitOptions): (ctx: Context) => Promise<void> | undefined {
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (points: number, duration: number): RateLimiterAbstract => {
    const redis = options.redis ?? null;
    // The store is part of the cache key: a limiter built before Redis was connected is not reused after.
    const id = `${redis ? 'redis' : 'memory'}:${points}/${duration}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      const common = { points, duration, keyPrefix: `${options.prefix}:rl:${points}/${duration}` };
      limiter = redis
        ? new RateLimiterRedis({ ...common, storeClient: redis, useRedisPackage: true, insuranceLimiter: new RateLimiterMemory(common) })
        : new RateLimiterMemory(common);
      limiters.set(id, limiter);
    }
    return limiter;
  };

  return rateLimitCheck(options, limiterFor);
}

/** The limiter of one request: nothing to wait for (undefined) when limiting is off or does not apply to the path. */
function rateLimitCheck(
  options: RateLimitOptions,
  limiterFor: (points: number, duration: number) => RateLimiterAbstract,
): (ctx: Context) => Promise<void> | undefined {
  const consume = async (ctx: Context, route: RouteMatch['route'] | undefined) => {
    const { points, durationSeconds } = route?.rateLimit || options;
    const clientPoints = route?.rateLimit ? route.rateLimit.clientPoints : undefined;
    const bucket = route ? route.path.toLowerCase() : '(unmatched)';
    try {
      await limiterFor(points, durationSeconds).consume(`${ctx.ip}|${bucket}`);
      if (clientPoints) await limiterFor(clientPoints, durationSeconds).consume(`client:${clientIdOf(ctx, options.secrets)}|${bucket}`);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw new RateLimitedError();
      options.logger.error({ err }, 'rate limiter store failed; request allowed');
    }
  };
  return (ctx) => {
    if (!options.enabled) return undefined;
    const route = (ctx.state.match as RouteMatch | undefined)?.route;
    if (route?.rateLimit === false) return undefined;
    const path = normalisePath(ctx.path);
    if (!(path === '/api' || path.startsWith('/api/'))) return undefined;
    return consume(ctx, route);
  };
}
