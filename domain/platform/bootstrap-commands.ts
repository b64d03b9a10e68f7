// POST /v1/platform/connections/{id}/bootstrap and reissue-claim (issue 35 §3), called by the app
// with its plt_ key. A bootstrap writes its plan (bootstrap-plan.ts) in one transaction, then runs
// as one durable workflow (workflows/platform/bootstrap.ts) that the request waits for. Its answer
// is given once: the transaction that marks it answered also sets the first agent's `ocv_` key and
// the claim token, both minted here and kept only as digests. A request that timed out (or a client
// that went away) may call again: it joins the same workflow, and the first answer after it ends
// is the one. Later calls get 409; reissue-claim mints a new claim link without re-provisioning.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { Problem, conflict, invalidField, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { assertBelowTierLimit } from '../limits/tier-limits.ts';
import { newAgentKey } from '../agents/agent-keys.ts';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import type { PlatformAppRow } from './platform-app-repository.ts';
import { callingApp } from './app-access.ts';
import { findTemplate, listTemplates, type TemplateRow } from './template-repository.ts';
import { TemplateSpecSchema } from './template-spec.ts';
import { planBootstrap, primaryAgent, type BootstrapPlan } from './bootstrap-plan.ts';
import type { PlatformClient } from './client.ts';
import {
  bootstrapOf, insertBootstrap, lockAppConnection, markBootstrapAnswered, setBootstrapAgentKey, setClaimToken,
} from './bootstrap-repository.ts';
import { signingKeysByIds } from './bootstrap-repository.ts';

export const CLAIM_TOKEN_PREFIX = 'ct_';
export const CLAIM_TTL_SECONDS = 600;
/** How long a bootstrap request waits for its workflow before answering 503 (call again). */
const WAIT_MS = 20_000;

export type ClaimLink = { claimUrl: string; claimToken: string; expiresIn: number; connectionId: string };
export type BootstrapAnswer = ClaimLink & {
  plan: BootstrapPlan; agentApiKey: string | null;
  signingKeys: { chain: string; curve: string; public_key: string; address: string }[];
};

export type BootstrapDeps = { db: () => EntityManager; audit: ActionAudit; pepper: KeyObject; client: PlatformClient; publicUrl: string };

export class BootstrapCommands {
  private readonly d: BootstrapDeps;

  constructor(deps: BootstrapDeps) {
    this.d = deps;
  }

  async bootstrap(ctx: ActionContext, connectionId: string, input: { templateId?: string; returnTo?: string }): Promise<BootstrapAnswer> {
    const app = await callingApp(this.d.db(), ctx);
    if (!isUuid(connectionId)) throw notFound('Connection');
    const returnTo = input.returnTo === undefined ? null : checkReturnTo(app, input.returnTo);
    const em = this.d.db();
    await em.transactional(async (tx) => {
      const c = await lockAppConnection(tx, app.id, connectionId);
      if (!c || c.status === 'disconnected') throw notFound('Connection');
      const existing = await bootstrapOf(tx, connectionId);
      if (existing?.answered_at) throw conflict('This connection was bootstrapped already: POST reissue-claim for a new claim link');
      if (existing) return; // running, or done and not yet answered: this call joins it
      const template = await this.template(tx, app.id, input.templateId);
      const plan = planBootstrap(TemplateSpecSchema.parse(template.spec), { id: c.user_id, orgId: c.org_id }, app.org_id);
      // user_pays: what the app provisions counts against the user's own plan, checked before
      // anything is made; otherwise the app's organization pays and the user's plan is not asked.
      if (app.billing_model === 'user_pays') {
        await assertBelowTierLimit(tx, c.org_id, 'vaults');
        await assertBelowTierLimit(tx, c.org_id, 'agents', plan.agents.length);
      }
      await insertBootstrap(tx, { connectionId, appId: app.id, templateId: template.id, templateVersion: template.version, plan, returnTo });
    });
    await this.d.client.startBootstrap(connectionId);
    if (!(await this.d.client.awaitBootstrap(connectionId, WAIT_MS))) {
      throw new Problem(503, 'The bootstrap is still running: call again to get its answer (nothing is provisioned twice)', { extras: { retry_after_seconds: 5 } });
    }
    const agentKey = newAgentKey(this.d.pepper);
    const claim = this.newClaim(app, connectionId);
    const plan = await em.transactional(async (tx) => {
      await lockAppConnection(tx, app.id, connectionId);
      if (!(await markBootstrapAnswered(tx, connectionId))) return null;
      const row = (await bootstrapOf(tx, connectionId))!;
      const agent = primaryAgent(row.plan);
      if (agent) await setBootstrapAgentKey(tx, agent.id, agentKey);
      await setClaimToken(tx, connectionId, claim.digest, claim.expiresAt);
      return row.plan;
    });
    if (!plan) throw conflict('This connection was bootstrapped already: POST reissue-claim for a new claim link');
    await this.d.audit.record(ctx, 'platform.bootstrap', {
      resourceType: 'platform_connection', resourceId: connectionId,
      details: { platform_app_id: app.id, vault_id: plan.vault.id, agent_ids: plan.agents.map((a) => a.id) },
    });
    const keys = await signingKeysByIds(em, plan.signingKeys.map((k) => k.id));
    return { ...claim.link, plan, agentApiKey: primaryAgent(plan) ? agentKey.apiKey : null, signingKeys: keys };
  }

  /** A fresh claim link for a bootstrapped connection not yet claimed; the previous link dies. */
  async reissueClaim(ctx: ActionContext, connectionId: string, input: { returnTo?: string }): Promise<ClaimLink> {
    const app = await callingApp(this.d.db(), ctx);
    if (!isUuid(connectionId)) throw notFound('Connection');
    const returnTo = input.returnTo === undefined ? undefined : checkReturnTo(app, input.returnTo);
    const claim = this.newClaim(app, connectionId);
    await this.d.db().transactional(async (tx) => {
      const c = await lockAppConnection(tx, app.id, connectionId);
      if (!c || c.status === 'disconnected') throw notFound('Connection');
      if (c.status === 'claimed') throw conflict('The user has claimed this connection already');
      const row = await bootstrapOf(tx, connectionId);
      if (!row?.answered_at) throw new Problem(400, 'This connection has not been bootstrapped yet: POST bootstrap first');
      await setClaimToken(tx, connectionId, claim.digest, claim.expiresAt, returnTo);
    });
    await this.d.audit.record(ctx, 'platform.claim.reissue', { resourceType: 'platform_connection', resourceId: connectionId, details: { platform_app_id: app.id } });
    return claim.link;
  }

  private newClaim(app: PlatformAppRow, connectionId: string) {
    const token = newOpaqueToken(CLAIM_TOKEN_PREFIX);
    return {
      digest: digestToken(this.d.pepper, token),
      expiresAt: new Date(Date.now() + CLAIM_TTL_SECONDS * 1000),
      link: {
        claimUrl: `${this.d.publicUrl}/connect/${encodeURIComponent(app.slug)}/claim/${token}`, claimToken: token, expiresIn: CLAIM_TTL_SECONDS, connectionId,
      },
    };
  }

  /** The template asked for, else the app's default: its oldest active template. */
  private async template(em: EntityManager, appId: string, templateId: string | undefined): Promise<TemplateRow> {
    if (templateId !== undefined) {
      const t = await findTemplate(em, appId, templateId);
      if (!t) throw notFound('Template');
      if (!t.is_active) throw invalidField('template_id', 'this template is not active');
      return t;
    }
    const t = (await listTemplates(em, appId)).find((x) => x.is_active);
    if (!t) throw invalidField('template_id', 'the app has no active template: create one, or name one');
    return t;
  }
}

/** return_to must lead to one of the app's redirect_uris (same origin and path; any query): no open redirect. */
function checkReturnTo(app: PlatformAppRow, returnTo: string): string {
  let url: URL;
  try {
    url = new URL(returnTo);
  } catch {
    throw invalidField('return_to', 'must be an absolute URL');
  }
  const allowed = app.redirect_uris.some((r) => {
    try {
      const u = new URL(r);
      return u.origin === url.origin && u.pathname === url.pathname;
    } catch { return false; }
  });
  if (!allowed) throw invalidField('return_to', "must be one of the app's redirect_uris (same origin and path)");
  return url.toString();
}
