// Who is calling: taken from a verified token or key, never from a request body.
/**
 * `platform`: a platform app acting through one of its connections to a user (X-Platform-Connection
 * with its plt_ key): its id is the connection's, its organization the user's. It reaches only the
 * secret routes that say so (api/route.ts `platformConnection`), and only what the user granted.
 */
export type PrincipalType = 'user' | 'agent' | 'platform';

/** Who can create things (vaults, shares, proposals): a human or an agent, never a platform connection. */
export function creatorType(p: { type: PrincipalType }): 'user' | 'agent' {
  if (p.type === 'platform') throw new Error('a platform connection does not create this');
  return p.type;
}

export type Principal = {
  type: PrincipalType;
  id: string;
  orgId: string;
  /** `jwt` for an access token, `api_key` for a raw personal key used as Bearer. */
  via: 'jwt' | 'api_key';
  /** Present for JWTs: the token id and expiry, used by DELETE /v1/auth/token. */
  jti?: string;
  expiresAt?: Date;
  scopes?: string[];
  intentsApiEnabled?: boolean;
};

/**
 * An app of the platform API, calling with its `plt_` key (spec §5 rule 4). Not a Principal: it
 * reaches only platform routes (api/pipeline/authenticate.ts), and the commands of those routes
 * take it explicitly.
 */
export type PlatformCaller = { type: 'platform'; id: string; orgId: string; via: 'api_key'; app: true };

export const subjectOf = (p: { type: PrincipalType; id: string }) => `${p.type}:${p.id}`;

/** The verified caller of an authenticated action (routes that are not public always have one). */
export function callerOf(ctx: { principal: Principal | null }): Principal {
  if (!ctx.principal) throw new Error('this action needs an authenticated caller');
  return ctx.principal;
}
