// Stage 4 (§7): authentication. A JWT (EdDSA, verified in memory), a personal `xck_` key or a
// platform app's `plt_` key as Bearer (bearer.ts). Anything missing, malformed, expired or revoked
// is a 401; a valid credential on a route not meant for its kind is a 403 (a `plt_` key reaches
// only the platform API, spec §5 rule 4, and, with X-Platform-Connection, the secret routes that
// allow it: what the connection's user granted).
import type { Middleware } from 'koa';
import type { AuthLevel, RequestState } from '../route.ts';
import type { ApiServices } from '../services.ts';
import { Problem } from '../../domain/errors.ts';
import { callerFromAuthorization, platformKeyRefused } from './bearer.ts';

export function authenticate(level: AuthLevel, s: ApiServices, platformConnection = false): Middleware<RequestState> {
  return async (ctx, next) => {
    const caller = await callerFromAuthorization(ctx.get('authorization') || undefined, s);
    if ('app' in caller) {
      const connection = ctx.get('x-platform-connection');
      if (platformConnection && connection) {
        // The app acts as its connection to a user: the secret action decides with the user's grants.
        const principal = await s.platformGrants.connectionPrincipal(caller, connection);
        if (!principal) throw new Problem(403, 'X-Platform-Connection names no live connection of this app');
        ctx.state.platformApp = caller;
        ctx.state.principal = principal;
      } else {
        if (level !== 'platform' && level !== 'user_or_platform') throw platformKeyRefused(platformConnection);
        ctx.state.platformApp = caller;
      }
    } else {
      if (level === 'platform') throw new Problem(403, "This operation is for platform apps: call it with the app's plt_ key");
      if ((level === 'user' || level === 'user_or_platform') && caller.type !== 'user') {
        throw new Problem(403, 'This operation is available to human users only');
      }
      ctx.state.principal = caller;
    }
    await next();
  };
}
