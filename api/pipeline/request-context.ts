// Stage 0: every request gets an id (echoed as X-Request-Id) and its client IP, before any
// other stage, so errors and audit records can name them.
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
    await next();
  };
}
