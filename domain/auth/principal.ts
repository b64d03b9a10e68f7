// Who is calling: taken from a verified token or key, never from a request body.
export type PrincipalType = 'user' | 'agent';

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
export type PlatformCaller = { type: 'platform'; id: string; orgId: string; via: 'api_key' };

export const subjectOf = (p: { type: PrincipalType; id: string }) => `${p.type}:${p.id}`;

/** The verified caller of an authenticated action (routes that are not public always have one). */
export function callerOf(ctx: { principal: Principal | null }): Principal {
  if (!ctx.principal) throw new Error('this action needs an authenticated caller');
  return ctx.principal;
}
