// Grants (issue 35 §3; reference POST /v1/platform/connections/{id}/grant, GET …/grants, DELETE
// …/grants/{grant_id}): a user lets an app connected to them reach some of their vaults, on some
// paths, with some permissions, until an expiry. Only the user calls these (with their own token);
// the app then reads with its plt_ key and X-Platform-Connection, and the one policy decision every
// secret action uses decides (grant-repository.ts writes the policy rows). A vault the user
// claimed from the app stays platform_locked: a grant there reaches metadata and writes, never a
// value. Disconnecting revokes every grant at once (connection-commands.ts).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Principal, PlatformCaller } from '../auth/principal.ts';
import { callerOf } from '../auth/principal.ts';
import { memberRole } from '../access/caller-repository.ts';
import { forbidden, invalidField, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { emitEvent } from '../events/outbox.ts';
import { connectionOfApp, insertGrant, liveGrants, lockUserConnection, revokeGrants, vaultsForGrant, type GrantRow } from './grant-repository.ts';

export type GrantInput = { vaultIds: string[]; agentIds: string[]; allowedPaths: string[]; permissions: string[]; expiresAt: Date | null };

export class GrantCommands {
  private readonly d: { db: () => EntityManager; audit: ActionAudit };

  constructor(deps: { db: () => EntityManager; audit: ActionAudit }) {
    this.d = deps;
  }

  async grant(ctx: ActionContext, connectionId: string, input: GrantInput): Promise<{ connectionId: string; grants: GrantRow[] }> {
    const p = callerOf(ctx);
    if (!isUuid(connectionId)) throw notFound('Connection');
    if (input.vaultIds.length === 0) throw invalidField('vault_ids', 'name at least one vault to grant');
    if (input.agentIds.length > 0) throw invalidField('agent_ids', 'granting apps access to agents is not offered yet: leave it empty');
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) throw invalidField('expires_at', 'must be in the future');
    const em = this.d.db();
    const vaultIds = [...new Set(input.vaultIds)];
    const result = await em.transactional(async (tx) => {
      const c = await lockUserConnection(tx, p.id, connectionId);
      if (!c) throw notFound('Connection');
      await this.assertOwnsVaults(tx, p, vaultIds);
      const grants: GrantRow[] = [];
      for (const vaultId of vaultIds) {
        grants.push(await insertGrant(tx, {
          id: randomUUID(), connectionId, orgId: p.orgId, vaultId, paths: input.allowedPaths, permissions: input.permissions, expiresAt: input.expiresAt, userId: p.id,
        }));
      }
      await emitEvent(tx, c.app_org_id, 'platform.grant.created', {
        platform_app_id: c.platform_app_id, connection_id: connectionId, user_id: p.id, grant_ids: grants.map((g) => g.id), vault_ids: vaultIds,
        permissions: input.permissions, allowed_paths: input.allowedPaths,
      });
      return { connectionId, grants, appId: c.platform_app_id };
    });
    await this.d.audit.record(ctx, 'platform.grant.create', {
      resourceType: 'platform_connection', resourceId: connectionId,
      details: { platform_app_id: result.appId, grant_ids: result.grants.map((g) => g.id), vault_ids: vaultIds, permissions: input.permissions },
    });
    return result;
  }

  async list(ctx: ActionContext, connectionId: string): Promise<GrantRow[]> {
    const p = callerOf(ctx);
    if (!isUuid(connectionId)) throw notFound('Connection');
    const em = this.d.db();
    return em.transactional(async (tx) => {
      if (!(await lockUserConnection(tx, p.id, connectionId))) throw notFound('Connection');
      return liveGrants(tx, connectionId);
    });
  }

  async revoke(ctx: ActionContext, connectionId: string, grantId: string): Promise<void> {
    const p = callerOf(ctx);
    if (!isUuid(connectionId) || !isUuid(grantId)) throw notFound('Grant');
    const appId = await this.d.db().transactional(async (tx) => {
      const c = await lockUserConnection(tx, p.id, connectionId);
      if (!c) throw notFound('Grant');
      const revoked = await revokeGrants(tx, connectionId, grantId);
      if (revoked.length === 0) throw notFound('Grant');
      await emitEvent(tx, c.app_org_id, 'platform.grant.revoked', { platform_app_id: c.platform_app_id, connection_id: connectionId, user_id: p.id, grant_ids: [grantId] });
      return c.platform_app_id;
    });
    await this.d.audit.record(ctx, 'platform.grant.revoke', { resourceType: 'platform_grant', resourceId: grantId, details: { platform_app_id: appId, connection_id: connectionId } });
  }

  /**
   * The principal a platform app acts as through one of its live connections (X-Platform-Connection):
   * the connection, in its user's organization. Null when the app has no such live connection.
   */
  async connectionPrincipal(app: PlatformCaller, connectionId: string): Promise<Principal | null> {
    if (!isUuid(connectionId)) return null;
    const c = await connectionOfApp(this.d.db(), app.id, connectionId);
    return c && { type: 'platform', id: c.id, orgId: c.org_id, via: 'api_key' };
  }

  /** The user may hand out a vault they manage: as an owner or admin of its organization, or as its creator. */
  private async assertOwnsVaults(em: EntityManager, p: Principal, ids: string[]): Promise<void> {
    const found = await vaultsForGrant(em, p.orgId, ids);
    if (found.length !== ids.length) throw notFound('Vault');
    const role = (await memberRole(em, p.id, p.orgId))?.role;
    if (role === 'owner' || role === 'admin') return;
    const notMine = found.find((v) => !(v.created_by === p.id && v.created_by_type === 'user'));
    if (notMine) throw forbidden(`You do not manage vault ${notMine.id}: only its creator or an owner or admin can grant it`);
  }
}
