// Stage 0: every request gets an id (echoed as X-Request-Id), its client IP and the headers every
// answer carries, before any other stage, so errors and audit records can name them.
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import { clientIp } from '../../domain/net/client-ip.ts';

export function requestContext(trustProxyHops: number): Middleware<RequestState> {
  return async (ctx, next) => {
    const requestId = randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.clientIp = clientIp(ctx.req.socket.remoteAddress, ctx.req.headers['x-forwarded-for'], trustProxyHops);
    ctx.set('X-Request-Id', requestId);
    // API answers carry tokens, keys and secret values: no cache may keep them (a route that
    // serves public data, such as the JWKS, says otherwise itself). No content sniffing either.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  };
}
