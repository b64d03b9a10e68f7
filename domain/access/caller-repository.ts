// A human caller's role in the organization, read from users: on the hot pool for the policy
// check of every secret read (a named statement), through the ORM for commands.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import type { Database } from '../../db/entities/index.ts';

type RoleRow = Pick<Selectable<Database['users']>, 'role'>;

/** The active user's role in this organization; undefined when the user is not an active member of it. */
export function memberRole(em: EntityManager, userId: string, orgId: string): Promise<RoleRow | undefined> {
  return query(em).selectFrom('users').select('role')
    .where('id', '=', userId).where('org_id', '=', orgId).where('status', '=', 'active').executeTakeFirst();
}

/** memberRole on the hot pool. */
export function memberRoleHot(hot: HotReads, userId: string, orgId: string): Promise<RoleRow | undefined> {
  return hot.one<RoleRow>('caller-role', "SELECT role FROM users WHERE id = $1 AND org_id = $2 AND status = 'active'", [userId, orgId]);
}
