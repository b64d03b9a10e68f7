// Stage 4 (§7): authentication. A JWT (EdDSA, verified in memory) or a personal `xck_` key as
// Bearer. Anything missing, malformed, expired or revoked is a 401.
import type { Middleware } from 'koa';
import type { AuthLevel, RequestState } from '../route.ts';
import type { ApiServices } from '../services.ts';
import { Problem, unauthorized } from '../../domain/errors.ts';
import { USER_KEY_PREFIX } from '../../domain/auth/api-keys.ts';

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,4096})$/;

export function authenticate(level: AuthLevel, s: ApiServices): Middleware<RequestState> {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (!header) throw challenge(unauthorized('Missing Authorization header (expected: Bearer <token>)'));
    const m = BEARER.exec(header);
    if (!m) throw challenge(unauthorized('Authorization header must be: Bearer <token>'));
    const credential = m[1]!;
    const principal = credential.startsWith(USER_KEY_PREFIX)
      ? await s.apiKeys.resolve(credential)
      : await s.jwt.verify(credential);
    if (!principal) throw challenge(unauthorized('Token or key is invalid, expired or revoked'));
    if (level === 'user' && principal.type !== 'user') {
      throw new Problem(403, 'This operation is available to human users only');
    }
    ctx.state.principal = principal;
    await next();
  };
}

function challenge(p: Problem): Problem {
  return new Problem(p.status, p.detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
}
