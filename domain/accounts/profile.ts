// The profile read behind GET /v1/auth/me, a hot path: one prepared, indexed query.
import type { HotReads } from '../../db/hot-reads.ts';
import { unauthorized } from '../errors.ts';

export type ProfileRow = {
  id: string; email: string; display_name: string | null; auth_method: string; role: string | null; org_id: string | null;
  email_verified: boolean; marketing_emails: boolean; has_password: boolean; created_at: string | Date;
};

/** The active account's profile; a deleted or removed account is a 401. */
export async function loadProfile(db: HotReads, userId: string): Promise<ProfileRow> {
  const row = await db.one<ProfileRow>('profile',
    `SELECT id, email, display_name, auth_method, role, org_id, email_verified, marketing_emails,
            password_hash IS NOT NULL AS has_password, created_at
       FROM users WHERE id = $1 AND status = 'active'`, [userId]);
  if (!row) throw unauthorized('Account no longer exists');
  return row;
}
