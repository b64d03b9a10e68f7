// CORS for the Temporal codec endpoint only: the Temporal UI calls it from the browser, from its
// own origin (http://localhost:8233 by default, TEMPORAL_UI_ORIGINS otherwise). Its requests
// carry `Content-Type: application/json` and `X-Namespace` (plus `Authorization` when the UI has
// its own login and passes its token), so the browser asks first with a preflight OPTIONS.
// Exact origins only; no cookies are involved (Access-Control-Allow-Credentials is never sent, so
// the UI's "include cross-origin credentials" option must stay off). A request from any other
// origin is refused outright, before authentication; requests without Origin (the CLI) pass.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { Config } from '../../domain/config.ts';
import { Problem } from '../../domain/errors.ts';
import { CODEC_BASE_PATH } from '../../domain/temporal/codec-commands.ts';

const ALLOWED_HEADERS = 'Authorization, Authorization-Extras, Content-Type, X-Namespace';
const PREFLIGHT_CACHE_SECONDS = '600';

export function codecCors(config: Pick<Config, 'temporalUiOrigins'>): Middleware<RequestState> {
  // Read at the first request: tools that only assemble the app (route inventory, OpenAPI lint) pass no origins.
  let allowed: Set<string> | undefined;
  return async (ctx, next) => {
    if (!(ctx.path === CODEC_BASE_PATH || ctx.path.startsWith(`${CODEC_BASE_PATH}/`))) return next();
    const origin = ctx.get('origin');
    if (!origin) return next();
    ctx.vary('Origin');
    allowed ??= new Set(config.temporalUiOrigins.map((o) => o.toLowerCase()));
    if (!allowed.has(origin.toLowerCase())) {
      throw new Problem(403, `Origin ${origin.slice(0, 200)} may not call the Temporal codec endpoint (allowed: TEMPORAL_UI_ORIGINS)`);
    }
    ctx.set('Access-Control-Allow-Origin', origin);
    if (ctx.method !== 'OPTIONS') return next();
    ctx.set('Access-Control-Allow-Methods', 'POST');
    ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    ctx.set('Access-Control-Max-Age', PREFLIGHT_CACHE_SECONDS);
    // Chrome's Private Network Access asks this when a page from a less private address calls us.
    if (ctx.get('access-control-request-private-network') === 'true') ctx.set('Access-Control-Allow-Private-Network', 'true');
    ctx.status = 204;
  };
}
