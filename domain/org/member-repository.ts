// Members of an organization are its active users: every statement about membership rows.
// Commands (member-commands.ts) decide; this file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Role } from '../access/roles.ts';
import { isUuid } from '../ids.ts';

export type MemberRow = { id: string; email: string; display_name: string | null; role: Role; auth_method: string; created_at: string | Date };

const COLUMNS = 'id, email, display_name, role, auth_method, created_at';

export function listMembers(em: EntityManager, orgId: string): Promise<MemberRow[]> {
  return em.execute<MemberRow[]>(`SELECT ${COLUMNS} FROM users WHERE org_id = ? AND status = 'active' ORDER BY created_at`, [orgId]);
}

/** The active member `userId` of the organization, or null (also for ids that are not UUIDs). */
export async function findMember(em: EntityManager, orgId: string, userId: string): Promise<MemberRow | null> {
  if (!isUuid(userId)) return null;
  const rows = await em.execute<MemberRow[]>(`SELECT ${COLUMNS} FROM users WHERE id = ? AND org_id = ? AND status = 'active'`, [userId, orgId]);
  return rows[0] ?? null;
}

export async function ownerCount(em: EntityManager, orgId: string): Promise<number> {
  const rows = await em.execute<{ n: number }[]>("SELECT count(*)::int AS n FROM users WHERE org_id = ? AND role = 'owner' AND status = 'active'", [orgId]);
  return rows[0]!.n;
}

export async function setRole(tx: EntityManager, userId: string, role: Role): Promise<void> {
  await tx.execute('UPDATE users SET role = ?, updated_at = now() WHERE id = ?', [role, userId]);
}

/** The account leaves the organization; it gets a fresh one of its own at its next login. */
export async function detachFromOrganization(tx: EntityManager, userId: string): Promise<void> {
  await tx.execute('UPDATE users SET org_id = NULL, role = NULL, updated_at = now() WHERE id = ?', [userId]);
}
