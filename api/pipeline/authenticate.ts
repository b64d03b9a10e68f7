// Stage 4 (§7): authentication. A JWT (EdDSA, verified in memory) or a personal `xck_` key as
// Bearer (bearer.ts). Anything missing, malformed, expired or revoked is a 401.
import type { Middleware } from 'koa';
import type { AuthLevel, RequestState } from '../route.ts';
import type { ApiServices } from '../services.ts';
import { Problem } from '../../domain/errors.ts';
import { principalFromAuthorization } from './bearer.ts';

export function authenticate(level: AuthLevel, s: ApiServices): Middleware<RequestState> {
  return async (ctx, next) => {
    const principal = await principalFromAuthorization(ctx.get('authorization') || undefined, s);
    if (level === 'user' && principal.type !== 'user') {
      throw new Problem(403, 'This operation is available to human users only');
    }
    ctx.state.principal = principal;
    await next();
  };
}
