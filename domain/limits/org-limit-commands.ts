// The operator's overrides of an organization's limits (issue 34 §5; reference adminGetOrgLimits /
// adminUpdateOrgLimits): its monthly request quota (free_tier_override in the reference's words),
// sponsorship (no request quota) and its caps on vaults, secrets, agents and automations, with an
// optional end. Platform operators (PLATFORM_ADMIN_EMAILS) only. A PUT replaces the whole override:
// what it leaves out goes back to the tier's figure. Caps apply to the next create (they are
// checked under the organization row's lock); api processes pick up a new quota within their
// plan cache's 30 s (domain/billing/quota-meter.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { PlatformOperators } from '../auth/platform-operators.ts';
import { callerOf } from '../auth/principal.ts';
import { badRequest, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { LimitedResource, Tier } from './tier-limits.ts';
import { limitsOf, replaceOverride, type OrgLimitOverrideRecord, type OrgLimitOverrideValues } from './org-limit-override-repository.ts';

/** The body, as the route checked it; absent fields are the tier's figure. */
export type OrgLimitsInput = {
  requestQuota?: number | null;
  isSponsored?: boolean;
  caps?: Partial<Record<LimitedResource, number | null>>;
  expiresAt?: Date | null;
};

/** What GET and PUT answer: the override as stored, whether it is in force, and the tier beneath it. */
export type OrgLimitsView = { orgId: string; tier: Tier; override: OrgLimitOverrideRecord | null; inForce: boolean };

export type OrgLimitDeps = { db: () => EntityManager; audit: ActionAudit; operators: PlatformOperators; now?: () => Date };

export class OrgLimitCommands {
  private readonly d: OrgLimitDeps;
  private readonly now: () => Date;

  constructor(deps: OrgLimitDeps) {
    this.d = deps;
    this.now = deps.now ?? (() => new Date());
  }

  async get(ctx: ActionContext, orgId: string): Promise<OrgLimitsView> {
    const em = this.d.db();
    await this.d.operators.requireOperator(em, callerOf(ctx));
    const limits = isUuid(orgId) ? await limitsOf(em, orgId) : undefined;
    if (!limits) throw notFound('Organization');
    return this.view(orgId, limits.tier, limits.override);
  }

  async set(ctx: ActionContext, orgId: string, input: OrgLimitsInput): Promise<OrgLimitsView> {
    const em = this.d.db();
    const operator = await this.d.operators.requireOperator(em, callerOf(ctx));
    if (input.expiresAt && input.expiresAt.getTime() <= this.now().getTime()) {
      throw badRequest('expires_at must be in the future (leave it out for an override without an end)');
    }
    if (!isUuid(orgId)) throw notFound('Organization');
    const values: OrgLimitOverrideValues = {
      request_quota: input.requestQuota ?? null,
      is_sponsored: input.isSponsored ?? false,
      max_vaults: input.caps?.vaults ?? null,
      max_secrets: input.caps?.secrets ?? null,
      max_agents: input.caps?.agents ?? null,
      max_automations: input.caps?.automations ?? null,
      expires_at: input.expiresAt ?? null,
    };
    const stored = await replaceOverride(em, orgId, values, operator.id);
    if (!stored) throw notFound('Organization');
    // In the organization's own audit chain (its owners see who changed their limits), the operator as actor.
    await this.d.audit.record(ctx, 'admin.org_limits_set', {
      orgId, resourceType: 'organization', resourceId: orgId,
      details: { org_id: orgId, limits: auditable(stored.row), previous_limits: stored.previous ? auditable(stored.previous) : null },
    });
    const limits = await limitsOf(em, orgId);
    return this.view(orgId, limits?.tier ?? 'free', stored.row);
  }

  private view(orgId: string, tier: Tier, override: OrgLimitOverrideRecord | null): OrgLimitsView {
    const inForce = override !== null && (override.expires_at === null || override.expires_at.getTime() > this.now().getTime());
    return { orgId, tier, override, inForce };
  }
}

const auditable = (r: OrgLimitOverrideRecord) => ({
  request_quota: r.request_quota, is_sponsored: r.is_sponsored, max_vaults: r.max_vaults, max_secrets: r.max_secrets,
  max_agents: r.max_agents, max_automations: r.max_automations, expires_at: r.expires_at?.toISOString() ?? null,
});
