// Spec §9.3: a dashboard proxy reaches the same API under a prefix of its own (DASHBOARD_PREFIX,
// e.g. /api serves /api/v1/...). The prefix is taken off the path before anything else runs, so
// every later stage (routing, audit and its path redaction, rate limit, IP filter, the codec
// endpoint's CORS, logs and metrics) sees the one canonical /v1 path and answers exactly as
// there: same auth, same bodies, problem details for unknown paths. The query string is kept;
// `ctx.originalUrl` still shows what the client sent.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';

export function dashboardPrefix(prefix: string): Middleware<RequestState> {
  const under = `${prefix}/`;
  return async (ctx, next) => {
    if (ctx.path.startsWith(under)) ctx.path = ctx.path.slice(prefix.length);
    await next();
  };
}
