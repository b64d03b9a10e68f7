// The one read behind PlatformOperators (platform-operators.ts): an account's current, verified
// e-mail. Read on every check, so a changed address or a deleted account loses the right at once.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

/** The active account's e-mail and organization when its address is verified; undefined otherwise. */
export function verifiedActiveAccount(em: EntityManager, userId: string): Promise<Pick<Selectable<Database['users']>, 'email' | 'org_id'> | undefined> {
  return query(em).selectFrom('users').select(['email', 'org_id'])
    .where('id', '=', userId).where('status', '=', 'active').where('email_verified', '=', true).executeTakeFirst();
}
