// Stage 2 (§7): global per-client-IP rate limit, shared by every api process (domain/ratelimit).
// While this process holds a lease of the address's window there is no store round trip.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { Limiter } from '../../domain/ratelimit/limiter.ts';
import { Problem } from '../../domain/errors.ts';

export function rateLimit(limiter: Limiter): Middleware<RequestState> {
  return async (ctx, next) => {
    const taken = limiter.take(ctx.state.clientIp);
    const wait = typeof taken === 'number' ? taken : await taken;
    if (wait > 0) {
      throw new Problem(429, 'Too many requests from this address; retry later', { headers: { 'Retry-After': String(wait) } });
    }
    await next();
  };
}
