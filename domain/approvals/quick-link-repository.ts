// The approval_quick_links table (migration 0036): the single-use quick-decide links mailed to an
// organization's owners and admins. Only the SHA-256 digest of a token is stored. Spending a link
// is one conditional UPDATE (unused and unexpired), so two clicks of the same link cannot both
// decide.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';

export type QuickLinkRow = { id: string; approval_id: string; user_id: string; expires_at: Date; used_at: Date | null };
const LINK_COLUMNS = ['id', 'approval_id', 'user_id', 'expires_at', 'used_at'] as const;

/** The organization's active owners and admins with their addresses: whom an approval is mailed to. */
export function approversOf(em: EntityManager, orgId: string): Promise<{ id: string; email: string }[]> {
  return query(em).selectFrom('users').select(['id', 'email'])
    .where('org_id', '=', orgId).where('role', 'in', ['owner', 'admin']).where('status', '=', 'active')
    .orderBy('created_at').execute();
}

/** Whether links were made for the approval already (its mail went out: a repeated activity sends none). */
export async function hasQuickLinks(em: EntityManager, approvalId: string): Promise<boolean> {
  const row = await query(em).selectFrom('approval_quick_links').select('id').where('approval_id', '=', approvalId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** A link for one human; false when that human already has one for this approval. */
/** `lifeSeconds`: counted on the database's clock from the row's created_at, so its life is exact. */
export async function insertQuickLink(tx: EntityManager, l: { approvalId: string; userId: string; digest: string; lifeSeconds: number }): Promise<boolean> {
  const row = await query(tx).insertInto('approval_quick_links').values({
    id: randomUUID(), approval_id: l.approvalId, user_id: l.userId, token_digest: l.digest, expires_at: sql<Date>`now() + make_interval(secs => ${l.lifeSeconds})`,
  }).onConflict((oc) => oc.columns(['approval_id', 'user_id']).doNothing()).returning('id').executeTakeFirst();
  return row !== undefined;
}

export async function findQuickLink(em: EntityManager, digest: string): Promise<QuickLinkRow | null> {
  return (await query(em).selectFrom('approval_quick_links').select(LINK_COLUMNS).where('token_digest', '=', digest).executeTakeFirst()) ?? null;
}

/** Marks the link used if it is unused and unexpired; false when it was not. */
export async function spendQuickLink(em: EntityManager, id: string): Promise<boolean> {
  const row = await query(em).updateTable('approval_quick_links').set({ used_at: sql`now()` })
    .where('id', '=', id).where('used_at', 'is', null).where('expires_at', '>', sql<Date>`now()`).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** Gives a spent link back (its decision could not be carried out, nothing changed). */
export async function unspendQuickLink(em: EntityManager, id: string): Promise<void> {
  await query(em).updateTable('approval_quick_links').set({ used_at: null }).where('id', '=', id).execute();
}
