// The caller behind an Authorization header: a JWT (EdDSA, verified in memory), a personal `xck_`
// key as Bearer, or a platform app's `plt_` key. Used by the authentication stage, and by the one
// public handler that takes an optional bearer (opening a share addressed to a user or agent, §5.9).
import type { PlatformCaller, Principal } from '../../domain/auth/principal.ts';
import { PLATFORM_KEY_PREFIX } from '../../domain/platform/platform-keys.ts';
import type { ApiServices } from '../services.ts';
import { Problem, unauthorized } from '../../domain/errors.ts';
import { USER_KEY_PREFIX } from '../../domain/auth/api-keys.ts';

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,4096})$/;

/** A `plt_` key where a user or an agent must call. */
export const platformKeyRefused = (withConnection = false) => new Problem(403, withConnection
  ? 'A platform key (plt_) reaches this route only with X-Platform-Connection: the connection whose grants it uses'
  : 'A platform key (plt_) reaches only the platform API (/v1/platform/…)');

/** The verified caller, a platform app included; a 401 challenge when the header is missing, malformed, expired or revoked. */
export async function callerFromAuthorization(header: string | undefined, s: Pick<ApiServices, 'apiKeys' | 'jwt' | 'platformKeys'>): Promise<Principal | PlatformCaller> {
  const credential = bearerOf(header);
  if (credential.startsWith(PLATFORM_KEY_PREFIX)) {
    const app = await s.platformKeys.resolve(credential);
    if (!app) throw challenge(unauthorized('Token or key is invalid, expired or revoked'));
    return app;
  }
  return userOrAgent(credential, s);
}

/** The verified user or agent; a 401 challenge when the header is missing, malformed, expired or revoked; 403 for a platform key. */
export async function principalFromAuthorization(header: string | undefined, s: Pick<ApiServices, 'apiKeys' | 'jwt'>): Promise<Principal> {
  const credential = bearerOf(header);
  if (credential.startsWith(PLATFORM_KEY_PREFIX)) throw platformKeyRefused();
  return userOrAgent(credential, s);
}

function bearerOf(header: string | undefined): string {
  if (!header) throw challenge(unauthorized('Missing Authorization header (expected: Bearer <token>)'));
  const m = BEARER.exec(header);
  if (!m) throw challenge(unauthorized('Authorization header must be: Bearer <token>'));
  return m[1]!;
}

async function userOrAgent(credential: string, s: Pick<ApiServices, 'apiKeys' | 'jwt'>): Promise<Principal> {
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
