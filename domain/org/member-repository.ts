// Members of an organization are its active users: every statement about membership rows.
// Commands (member-commands.ts) decide; this file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import type { Role } from '../access/roles.ts';
import { isUuid } from '../ids.ts';

/** A member always has a role: users_check ties a role to an organization. */
export type MemberRow = Pick<Selectable<Database['users']>, 'id' | 'email' | 'display_name' | 'auth_method' | 'created_at'> & { role: Role };

const COLUMNS = ['id', 'email', 'display_name', 'role', 'auth_method', 'created_at'] as const;

function members(em: EntityManager, orgId: string) {
  return query(em).selectFrom('users').select(COLUMNS).where('org_id', '=', orgId).where('status', '=', 'active').$narrowType<{ role: Role }>();
}

export function listMembers(em: EntityManager, orgId: string): Promise<MemberRow[]> {
  return members(em, orgId).orderBy('created_at').execute();
}

/** The active member `userId` of the organization, or null (also for ids that are not UUIDs). */
export async function findMember(em: EntityManager, orgId: string, userId: string): Promise<MemberRow | null> {
  if (!isUuid(userId)) return null;
  return (await members(em, orgId).where('id', '=', userId).executeTakeFirst()) ?? null;
}

export async function ownerCount(em: EntityManager, orgId: string): Promise<number> {
  const row = await query(em).selectFrom('users').select(sql<number>`count(*)::int`.as('n'))
    .where('org_id', '=', orgId).where('role', '=', 'owner').where('status', '=', 'active').executeTakeFirstOrThrow();
  return row.n;
}

export async function setRole(tx: EntityManager, userId: string, role: Role): Promise<void> {
  await query(tx).updateTable('users').set({ role, updated_at: sql<Date>`now()` }).where('id', '=', userId).execute();
}

/** The account leaves the organization; it gets a fresh one of its own at its next login. */
export async function detachFromOrganization(tx: EntityManager, userId: string): Promise<void> {
  await query(tx).updateTable('users').set({ org_id: null, role: null, updated_at: sql<Date>`now()` }).where('id', '=', userId).execute();
}
