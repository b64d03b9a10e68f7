// The invitations table. A token is stored only as its peppered digest; an invitation is used
// once, by one conditional UPDATE.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

type InvitationRow = Selectable<Database['invitations']>;

export type InvitedRole = InvitationRow['role'];
export type NewInvitation = { orgId: string; email: string; role: InvitedRole; tokenDigest: string; invitedBy: string; ttlDays: number };

/** Records an invitation, replacing any open one to the same address; returns its id. */
export async function replaceOpenInvitation(tx: EntityManager, inv: NewInvitation): Promise<string> {
  const q = query(tx);
  await q.deleteFrom('invitations')
    .where('org_id', '=', inv.orgId).where((eb) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(inv.email)]))).where('accepted_at', 'is', null)
    .execute();
  const id = randomUUID();
  await q.insertInto('invitations').values({
    id, org_id: inv.orgId, email: inv.email, role: inv.role, token_digest: inv.tokenDigest, invited_by: inv.invitedBy,
    expires_at: sql<Date>`now() + make_interval(days => ${inv.ttlDays})`,
  }).execute();
  return id;
}

/** Marks the open, unexpired invitation with this digest accepted; undefined when there is none. */
export function consumeInvitation(tx: EntityManager, tokenDigest: string): Promise<Pick<InvitationRow, 'id' | 'org_id' | 'email' | 'role'> | undefined> {
  return query(tx).updateTable('invitations').set({ accepted_at: sql<Date>`now()` })
    .where('token_digest', '=', tokenDigest).where('accepted_at', 'is', null).where('expires_at', '>', sql<Date>`now()`)
    .returning(['id', 'org_id', 'email', 'role']).executeTakeFirst();
}
