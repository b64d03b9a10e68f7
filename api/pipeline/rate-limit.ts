// Stage 2 (§7): global per-client-IP rate limit, in memory (no database round trip).
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { TokenBuckets } from '../../domain/ratelimit/token-bucket.ts';
import { Problem } from '../../domain/errors.ts';

export function rateLimit(buckets: TokenBuckets): Middleware<RequestState> {
  return async (ctx, next) => {
    const wait = buckets.take(ctx.state.clientIp);
    if (wait > 0) {
      throw new Problem(429, 'Too many requests from this address; retry later', { headers: { 'Retry-After': String(wait) } });
    }
    await next();
  };
}
