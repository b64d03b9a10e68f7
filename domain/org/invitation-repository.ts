// The invitations table. A token is stored only as its peppered digest; an invitation is used
// once, by one conditional UPDATE.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export type InvitedRole = 'admin' | 'member';
export type NewInvitation = { orgId: string; email: string; role: InvitedRole; tokenDigest: string; invitedBy: string; ttlDays: number };

/** Records an invitation, replacing any open one to the same address; returns its id. */
export async function replaceOpenInvitation(tx: EntityManager, inv: NewInvitation): Promise<string> {
  await tx.execute('DELETE FROM invitations WHERE org_id = ? AND lower(email) = lower(?) AND accepted_at IS NULL', [inv.orgId, inv.email]);
  const id = randomUUID();
  await tx.execute(
    'INSERT INTO invitations (id, org_id, email, role, token_digest, invited_by, expires_at) VALUES (?, ?, ?, ?, ?, ?, now() + make_interval(days => ?))',
    [id, inv.orgId, inv.email, inv.role, inv.tokenDigest, inv.invitedBy, inv.ttlDays]);
  return id;
}

/** Marks the open, unexpired invitation with this digest accepted; null when there is none. */
export async function consumeInvitation(tx: EntityManager, tokenDigest: string): Promise<{ id: string; org_id: string; email: string; role: InvitedRole } | null> {
  const rows = await tx.execute<{ id: string; org_id: string; email: string; role: InvitedRole }[]>(
    'UPDATE invitations SET accepted_at = now() WHERE token_digest = ? AND accepted_at IS NULL AND expires_at > now() RETURNING id, org_id, email, role',
    [tokenDigest]);
  return rows[0] ?? null;
}
