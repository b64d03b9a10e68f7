// The public claim routes (issue 35 §3; spec §5 rule 7): GET /v1/platform/claim/{token} previews
// what the app provisioned, POST redeems it. The token (`ct_`, 10 minutes, kept as a digest) is
// the only credential. Redeeming hands the resources to the user for good: the connection becomes
// claimed, the app's reach into the bootstrapped vault ends, and the vault is platform_locked (no
// platform caller reads its secret values again, whatever the user grants later). 404 for a token
// that never was (or was replaced by a reissue), 409 once used, 410 once expired.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { conflict, gone, notFound } from '../errors.ts';
import { emitEvent } from '../events/outbox.ts';
import { digestToken } from '../crypto/opaque-tokens.ts';
import { CLAIM_TOKEN_PREFIX } from './bootstrap-commands.ts';
import { claimConnection, claimTargetByDigest, type ClaimTarget } from './bootstrap-repository.ts';

export type ClaimPreview = { target: ClaimTarget; alreadyClaimed: boolean; expired: boolean; policyCount: number };
export type ClaimRedeemed = { target: ClaimTarget; dashboardUrl: string };

const TOKEN_SHAPE = /^ct_[A-Za-z0-9_-]{16,128}$/;

export class ClaimCommands {
  private readonly d: { db: () => EntityManager; audit: ActionAudit; pepper: KeyObject; publicUrl: string };

  constructor(deps: { db: () => EntityManager; audit: ActionAudit; pepper: KeyObject; publicUrl: string }) {
    this.d = deps;
  }

  async preview(token: string): Promise<ClaimPreview> {
    const target = await this.find(this.d.db(), token, false);
    return {
      target, alreadyClaimed: target.connection_status === 'claimed', expired: isExpired(target),
      policyCount: target.plan.policies.length,
    };
  }

  async redeem(ctx: ActionContext, token: string): Promise<ClaimRedeemed> {
    const target = await this.d.db().transactional(async (tx) => {
      const t = await this.find(tx, token, true);
      if (t.connection_status === 'claimed') throw conflict('This claim link was used already');
      if (t.connection_status === 'disconnected') throw notFound('Claim');
      if (isExpired(t)) throw gone('This claim link has expired: ask the app for a new one');
      await claimConnection(tx, t);
      await emitEvent(tx, t.app_org_id, 'platform.user.claimed', {
        platform_app_id: t.platform_app_id, connection_id: t.connection_id, user_id: t.user_id, vault_ids: [t.plan.vault.id],
        agent_ids: t.plan.agents.map((a) => a.id),
      });
      return t;
    });
    await this.d.audit.record(ctx, 'platform.claim.redeem', {
      actor: { type: 'user', id: target.user_id, orgId: target.plan.orgId }, orgId: target.plan.orgId,
      resourceType: 'platform_connection', resourceId: target.connection_id, details: { platform_app_id: target.platform_app_id, vault_id: target.plan.vault.id },
    });
    return { target: { ...target, connection_status: 'claimed' }, dashboardUrl: `${this.d.publicUrl}/vaults/${target.plan.vault.id}` };
  }

  private async find(em: EntityManager, token: string, lock: boolean): Promise<ClaimTarget> {
    if (!token.startsWith(CLAIM_TOKEN_PREFIX) || !TOKEN_SHAPE.test(token)) throw notFound('Claim');
    const t = await claimTargetByDigest(em, digestToken(this.d.pepper, token), lock);
    if (!t) throw notFound('Claim');
    return t;
  }
}

const isExpired = (t: ClaimTarget) => t.claim_expires_at === null || t.claim_expires_at.getTime() <= Date.now();
