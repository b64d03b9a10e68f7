// Organization members (§4.12). Roles owner/admin/member; the last owner stays an owner.
import { z } from 'zod';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { requireManager, type Role } from '../../../domain/org/roles.ts';
import { iso } from '../../../domain/time.ts';
import { conflict, forbidden, notFound } from '../../../domain/errors.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../../../domain/ids.ts';

type MemberRow = { id: string; email: string; display_name: string | null; role: Role; auth_method: string; created_at: string };
const present = (m: MemberRow) => ({ id: m.id, user_id: m.id, email: m.email, display_name: m.display_name, role: m.role, auth_method: m.auth_method, created_at: iso(m.created_at) });

async function member(em: EntityManager, orgId: string, userId: string): Promise<MemberRow> {
  if (!isUuid(userId)) throw notFound('Member');
  const rows = await em.execute<MemberRow[]>(
    "SELECT id, email, display_name, role, auth_method, created_at FROM users WHERE id = ? AND org_id = ? AND status = 'active'", [userId, orgId]);
  if (!rows[0]) throw notFound('Member');
  return rows[0];
}

async function ownerCount(em: EntityManager, orgId: string): Promise<number> {
  const rows = await em.execute<{ n: number }[]>("SELECT count(*)::int AS n FROM users WHERE org_id = ? AND role = 'owner' AND status = 'active'", [orgId]);
  return rows[0]!.n;
}

export const memberRoutes = [
  route({
    method: 'GET', path: '/v1/org/members', tag: 'Organization', auth: 'user',
    summary: "List the organization's members",
    success: { status: 200, description: '{members}' },
    async handler({ ctx, principal, services: s }) {
      const rows = await s.em().execute<MemberRow[]>(
        "SELECT id, email, display_name, role, auth_method, created_at FROM users WHERE org_id = ? AND status = 'active' ORDER BY created_at", [principal.orgId]);
      json(ctx, 200, { members: rows.map(present) });
    },
  }),
  route({
    method: 'PATCH', path: '/v1/org/members/:user_id', tag: 'Organization', auth: 'user',
    summary: "Change a member's role",
    params: z.object({ user_id: z.string() }),
    body: z.object({ role: z.enum(['owner', 'admin', 'member']) }),
    success: { status: 200, description: 'Member' }, errors: { 403: 'Not allowed', 404: 'No such member', 409: 'Would leave no owner' },
    async handler({ ctx, params, body, principal, services: s }) {
      const result = await s.em().transactional(async (tx) => {
        // Serialize role changes per organization so two demotions cannot both pass the owner check.
        await tx.execute('SELECT id FROM organizations WHERE id = ? FOR UPDATE', [principal.orgId]);
        const myRole = await requireManager(tx, principal);
        const target = await member(tx, principal.orgId, params.user_id);
        if ((target.role === 'owner' || body.role === 'owner') && myRole !== 'owner') {
          throw forbidden('Only an owner can grant or change the owner role');
        }
        if (target.role === 'owner' && body.role !== 'owner' && (await ownerCount(tx, principal.orgId)) <= 1) {
          throw conflict('The last owner cannot be demoted: make another member owner first');
        }
        await tx.execute('UPDATE users SET role = ?, updated_at = now() WHERE id = ?', [body.role, target.id]);
        return { ...target, role: body.role };
      });
      await auditAction(ctx, s, 'org.member_role_change', { resourceType: 'user', resourceId: result.id, details: { role: body.role } });
      json(ctx, 200, present(result));
    },
  }),
  route({
    method: 'DELETE', path: '/v1/org/members/:user_id', tag: 'Organization', auth: 'user',
    summary: 'Remove a member from the organization (their sessions end)',
    params: z.object({ user_id: z.string() }),
    success: { status: 204, description: 'Removed' }, errors: { 403: 'Not allowed', 404: 'No such member', 409: 'Would leave no owner' },
    async handler({ ctx, params, principal, services: s }) {
      const removed = await s.em().transactional(async (tx) => {
        await tx.execute('SELECT id FROM organizations WHERE id = ? FOR UPDATE', [principal.orgId]);
        const myRole = await requireManager(tx, principal);
        const target = await member(tx, principal.orgId, params.user_id);
        if (target.role === 'owner' && myRole !== 'owner') throw forbidden('Only an owner can remove an owner');
        if (target.role === 'owner' && (await ownerCount(tx, principal.orgId)) <= 1) {
          throw conflict('The last owner cannot be removed');
        }
        // The account survives without an organization; it gets a fresh one at its next login.
        await tx.execute('UPDATE users SET org_id = NULL, role = NULL, updated_at = now() WHERE id = ?', [target.id]);
        await s.revocations.revokePrincipal(tx, `user:${target.id}`);
        await s.apiKeys.announceChange(tx, target.id);
        return target;
      });
      await auditAction(ctx, s, 'org.member_remove', { resourceType: 'user', resourceId: removed.id });
      ctx.status = 204;
    },
  }),
];
