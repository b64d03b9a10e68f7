// Secret paths come from the raw URL, still percent-encoded, and are canonicalized before any
// authorization: raw, per-segment-encoded and %2F-encoded slashes all name the same secret.
import type { AppContext } from '../../route.ts';
import { canonicalSecretPath } from '../../../domain/paths/secret-path.ts';
import { badRequest } from '../../../domain/errors.ts';

/** The raw path tail after `/v1/vaults/{id}/<kind>/` in this request's URL. */
function rawTail(ctx: AppContext, kind: string): string {
  const m = new RegExp(`^/v1/vaults/[^/]+/${kind}/(.+)$`).exec(ctx.path);
  if (!m) throw badRequest('path: a secret path is required');
  return m[1]!;
}

export const secretPathOf = (ctx: AppContext, kind: string): string => canonicalSecretPath(rawTail(ctx, kind));

/** `/<kind>/{path}/{version}`: the canonical path and the version number. */
export function secretPathAndVersionOf(ctx: AppContext, kind: string): { path: string; version: number } {
  const tail = rawTail(ctx, kind);
  const cut = tail.lastIndexOf('/');
  const versionText = cut > 0 ? tail.slice(cut + 1) : '';
  if (!/^[1-9]\d{0,8}$/.test(versionText)) throw badRequest('version: the URL must end with /{path}/{version} where version is a positive integer');
  return { path: canonicalSecretPath(tail.slice(0, cut)), version: Number(versionText) };
}
