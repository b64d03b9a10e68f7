// The profile behind GET /v1/auth/me, a hot path: one prepared, indexed query (user-repository.ts).
import type { HotReads } from '../../db/hot-reads.ts';
import { unauthorized } from '../errors.ts';
import { readProfile, type ProfileRow } from './user-repository.ts';

export type { ProfileRow };

/** The active account's profile; a deleted or removed account is a 401. */
export async function loadProfile(db: HotReads, userId: string): Promise<ProfileRow> {
  const row = await readProfile(db, userId);
  if (!row) throw unauthorized('Account no longer exists');
  return row;
}
