// The caller behind an Authorization header: a JWT (EdDSA, verified in memory) or a personal `xck_`
// key as Bearer. Used by the authentication stage, and by the one public handler that takes an
// optional bearer (opening a share addressed to a user or agent, §5.9).
import type { Principal } from '../../domain/auth/principal.ts';
import type { ApiServices } from '../services.ts';
import { Problem, unauthorized } from '../../domain/errors.ts';
import { USER_KEY_PREFIX } from '../../domain/auth/api-keys.ts';

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,4096})$/;

/** The verified caller; a 401 challenge when the header is missing, malformed, expired or revoked. */
export async function principalFromAuthorization(header: string | undefined, s: Pick<ApiServices, 'apiKeys' | 'jwt'>): Promise<Principal> {
  if (!header) throw challenge(unauthorized('Missing Authorization header (expected: Bearer <token>)'));
  const m = BEARER.exec(header);
  if (!m) throw challenge(unauthorized('Authorization header must be: Bearer <token>'));
  const credential = m[1]!;
  const principal = credential.startsWith(USER_KEY_PREFIX)
    ? await s.apiKeys.resolve(credential)
    : await s.jwt.verify(credential);
  if (!principal) throw challenge(unauthorized('Token or key is invalid, expired or revoked'));
  return principal;
}

/** As principalFromAuthorization, but no header means no caller (null) rather than a 401. */
export function optionalPrincipal(header: string | undefined, s: Pick<ApiServices, 'apiKeys' | 'jwt'>): Promise<Principal | null> {
  return header ? principalFromAuthorization(header, s) : Promise.resolve(null);
}

function challenge(p: Problem): Problem {
  return new Problem(p.status, p.detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
}
