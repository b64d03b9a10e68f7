// Organization members (§4.12). Roles owner/admin/member: owners and admins manage members,
// only owners grant or take away ownership, and the last owner stays an owner.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { RevocationList } from '../auth/revocations.ts';
import type { ApiKeyService } from '../auth/api-keys.ts';
import { callerOf, subjectOf } from '../auth/principal.ts';
import { requireManager, type Role } from '../access/roles.ts';
import { lockOrganization } from './organization-repository.ts';
import { detachFromOrganization, findMember, listMembers, ownerCount, setRole, type MemberRow } from './member-repository.ts';
import { conflict, forbidden, notFound } from '../errors.ts';

export type MemberDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  revocations: Pick<RevocationList, 'revokePrincipal'>;
  apiKeys: Pick<ApiKeyService, 'announceChange'>;
};

export class MemberCommands {
  private readonly d: MemberDeps;

  constructor(deps: MemberDeps) {
    this.d = deps;
  }

  /** Every member of the caller's organization, oldest first. Any member may see them. */
  async list(ctx: ActionContext): Promise<MemberRow[]> {
    return listMembers(this.d.db(), callerOf(ctx).orgId);
  }

  async changeRole(ctx: ActionContext, userId: string, role: Role): Promise<MemberRow> {
    const p = callerOf(ctx);
    const changed = await this.d.db().transactional(async (tx) => {
      // Serialized per organization, so two demotions cannot both pass the last-owner check.
      await lockOrganization(tx, p.orgId);
      const myRole = await requireManager(tx, p);
      const target = await findMember(tx, p.orgId, userId);
      if (!target) throw notFound('Member');
      if ((target.role === 'owner' || role === 'owner') && myRole !== 'owner') {
        throw forbidden('Only an owner can grant or change the owner role');
      }
      if (target.role === 'owner' && role !== 'owner' && (await ownerCount(tx, p.orgId)) <= 1) {
        throw conflict('The last owner cannot be demoted: make another member owner first');
      }
      await setRole(tx, target.id, role);
      return { ...target, role };
    });
    await this.d.audit.record(ctx, 'org.member_role_change', { resourceType: 'user', resourceId: changed.id, details: { role } });
    return changed;
  }

  /** Removes a member: its sessions and API keys stop working at once; the account survives. */
  async remove(ctx: ActionContext, userId: string): Promise<void> {
    const p = callerOf(ctx);
    const removed = await this.d.db().transactional(async (tx) => {
      await lockOrganization(tx, p.orgId);
      const myRole = await requireManager(tx, p);
      const target = await findMember(tx, p.orgId, userId);
      if (!target) throw notFound('Member');
      if (target.role === 'owner' && myRole !== 'owner') throw forbidden('Only an owner can remove an owner');
      if (target.role === 'owner' && (await ownerCount(tx, p.orgId)) <= 1) throw conflict('The last owner cannot be removed');
      await detachFromOrganization(tx, target.id);
      await this.d.revocations.revokePrincipal(tx, subjectOf({ type: 'user', id: target.id }));
      await this.d.apiKeys.announceChange(tx, target.id);
      return target;
    });
    await this.d.audit.record(ctx, 'org.member_remove', { resourceType: 'user', resourceId: removed.id });
  }
}
