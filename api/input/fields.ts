// Input fields that several areas share, written once.
import { z } from 'zod';
import { badRequest } from '../../domain/errors.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../domain/crypto/passwords.ts';
import type { CursorCodec } from '../../domain/paging/cursor.ts';

/** An id taken from the URL. Anything that is not a UUID is simply not found (checked by the domain). */
export const idParam = z.string().max(64);

/** An ISO 8601 timestamp with an offset. */
export const timestampField = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' });

/** Pagination: a page size within [1, max] (default `dflt`) and an opaque cursor. */
export const limitField = (max: number, dflt: number) => z.coerce.number().int().min(1).max(max).default(dflt);
/**
 * The list's cursor, decoded while the query is validated: the handler gets the key the page
 * starts after, and anything that is not a cursor this list wrote is a 400 naming `cursor`.
 */
export const cursorField = <K>(codec: CursorCodec<K>) => z.string().min(1).max(2048).transform((text, ctx): K => {
  const key = codec.decode(text);
  if (key === null) {
    ctx.addIssue({ code: 'custom', message: 'is not a cursor returned by this endpoint' });
    return z.NEVER;
  }
  return key;
});

/** A positive 32-bit integer from a query string (`?version=`): larger values do not exist. */
export const positiveInt32Query = z.coerce.number().int().positive().max(2_147_483_647);

/** A timestamp that must lie in the future, or null to clear it; `field` names it in the error. */
export function futureOrNull(field: string, v: string | null | undefined): Date | null | undefined {
  if (v === undefined || v === null) return v;
  const d = new Date(v);
  if (d.getTime() <= Date.now()) throw badRequest(`${field}: must be in the future`);
  return d;
}

/** An e-mail address, trimmed and lower-cased (accounts, invitations, enrollment). */
export const emailField = z.string().trim().max(254).pipe(z.email({ message: 'must be a valid e-mail address' })).transform((e) => e.toLowerCase());
export const passwordField = z.string()
  .min(PASSWORD_MIN, { message: `must be at least ${PASSWORD_MIN} characters` })
  .max(PASSWORD_MAX, { message: `must be at most ${PASSWORD_MAX} characters` });
export const displayNameField = z.string().trim().min(1).max(100);
