// Assembles the HTTP service. The request pipeline reads top to bottom in the order of spec §7:
//   audit -> rate limit -> payment (x402) -> authenticate -> IP filter -> usage/quota
//   -> quota headers -> route: validate -> handler -> presenter
import Koa from 'koa';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { RequestState, RouteDef, AppContext } from './route.ts';
import type { ApiServices } from './services.ts';
import { requestContext } from './pipeline/request-context.ts';
import { observeRequests } from './pipeline/observe.ts';
import { observabilitySettings } from '../domain/observability/process-telemetry.ts';
import { problemDetails } from './pipeline/problem-details.ts';
import { auditRequests } from './pipeline/audit.ts';
import { rateLimit } from './pipeline/rate-limit.ts';
import { authenticate } from './pipeline/authenticate.ts';
import { ipFilter } from './pipeline/ip-filter.ts';
import { usage } from './pipeline/usage.ts';
import { x402Payment } from './pipeline/x402.ts';
import { codecCors } from './pipeline/codec-cors.ts';
import { dashboardPrefix } from './pipeline/dashboard-prefix.ts';
import { readJsonBody } from './body.ts';
import { parseOrThrow } from './validate.ts';
import { Problem, notFound } from '../domain/errors.ts';
import { allRoutes } from './routes/index.ts';
import { PathRedactor } from './path-redaction.ts';
import type { ActionContext } from '../domain/audit/action-context.ts';
import { chargeOf } from './pipeline/audit.ts';

export function createApp(s: ApiServices): { app: Koa<RequestState>; router: Router<RequestState>; routes: RouteDef[] } {
  const app = new Koa<RequestState>();
  app.proxy = false; // client IP comes from request-context (TRUST_PROXY_HOPS), never from Koa
  const routes = allRoutes();
  const paths = new PathRedactor(routes);
  const router = new Router<RequestState>();
  for (const def of routes) {
    router.register(def.path, [def.method], routeStages(def, s, paths) as never);
  }

  if (s.config.dashboardPrefix) app.use(dashboardPrefix(s.config.dashboardPrefix)); // /api/v1/… is /v1/… (§9.3)
  app.use(requestContext(s.config.trustProxyHops));
  app.use(observeRequests(s.log, paths, observabilitySettings())); // log scope, span, metrics, access line
  app.use(auditRequests(s.audit, paths));          // 1. audit record (sees the final status)
  app.use(problemDetails(s.log));           //    every error below becomes problem details
  app.use(rateLimit(s.rateLimiter));        // 2. global rate limit
  app.use(codecCors(s.config));             //    CORS (and preflights) of the Temporal codec endpoint only
  //                                           3. payment (x402): per route, see routeStages
  app.use(async (ctx, next) => {           //    nothing matched: 404 problem details
    await next();
    if (ctx.status === 404 && ctx.body === undefined) throw notFound('Route');
  });
  app.use(router.routes());                 // 4-8 run per route, see routeStages
  app.use(router.allowedMethods({ throw: true, methodNotAllowed: () => new Problem(405, 'Method not allowed on this path') }));
  return { app, router, routes };
}

/** The per-route part of the pipeline. */
function routeStages(def: RouteDef, s: ApiServices, paths: PathRedactor): Middleware<RequestState>[] {
  const stages: Middleware<RequestState>[] = [
    async (ctx, next) => { ctx.state.routeLabel = `${def.method} ${def.path}`; ctx.state.route = def; await next(); },
  ];
  if (def.billable) stages.push(x402Payment(s.x402, def.billable)); // 3. x402 payment, before authentication
  if (def.auth !== 'public') {
    stages.push(authenticate(def.auth, s, def.platformConnection === true)); // 4. authentication
    stages.push(ipFilter(s.ipRules));       // 5. IP filter
    if (s.quotaMeter) stages.push(usage(s.quotaMeter, s.creditMeter, s.creditHeaders)); // 6-7. usage against the monthly quota, quota headers
  }
  stages.push((ctx) => handle(def, ctx, s, paths)); // 8. validate -> handler
  return stages;
}

async function handle(def: RouteDef, ctx: AppContext, s: ApiServices, paths: PathRedactor): Promise<void> {
  const params = def.params ? parseOrThrow(def.params, ctx.params ?? {}, 'path') : (ctx as unknown as { params: unknown }).params;
  const query = def.query ? parseOrThrow(def.query, ctx.query, 'query') : undefined;
  let body: unknown;
  if (def.body) body = parseOrThrow(def.body, await readJsonBody(ctx, def.bodyLimitBytes ?? s.config.bodyLimitBytes), 'body');
  const action: ActionContext = {
    principal: ctx.state.principal ?? null,
    platformApp: ctx.state.platformApp ?? null,
    clientIp: ctx.state.clientIp,
    requestId: ctx.state.requestId,
    method: ctx.method,
    // Redacted only when a command records it (most reads of this context never do).
    get path() { return paths.redact(ctx.path, def); },
    onAudited: () => { ctx.state.audited = true; },
    get charge() { return chargeOf(ctx.state.billing, def.path, ctx.state.successStatus ?? def.success.status); },
  };
  const result = await def.handler({ ctx, body, query, params, services: s, principal: ctx.state.principal!, action });
  ctx.status = ctx.state.successStatus ?? def.success.status;
  if (ctx.status !== 204) ctx.body = result;
}
