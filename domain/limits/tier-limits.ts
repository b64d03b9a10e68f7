// Per-tier caps on vaults, secrets and agents (reference facts §20) and on automations (spec §8);
// `null` = unlimited.
// Checked under a lock on the organization row, so concurrent creates cannot overshoot.
// Every check reads the tier in force (tierInForce), never organizations.billing_tier directly;
// the statements are in tier-repository.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Problem } from '../errors.ts';
import { countResource, tierInForce } from './tier-repository.ts';
import { capInForce } from './org-limit-override-repository.ts';

// Other areas read the tier in force through this module, next to the limits it selects.
export { tierInForce };

export type Tier = 'free' | 'pro' | 'team' | 'business' | 'enterprise';
/** Every tier, cheapest first (the CHECK of organizations.billing_tier). */
export const TIERS: readonly Tier[] = ['free', 'pro', 'team', 'business', 'enterprise'];

export type LimitedResource = 'vaults' | 'secrets' | 'agents' | 'automations';

export const TIER_LIMITS: Record<Tier, Record<LimitedResource, number | null>> = {
  free: { vaults: 3, secrets: 50, agents: 2, automations: 2 },
  pro: { vaults: 25, secrets: 500, agents: 10, automations: 10 },
  team: { vaults: 100, secrets: 5000, agents: 50, automations: 50 },
  business: { vaults: null, secrets: null, agents: 200, automations: 200 },
  enterprise: { vaults: null, secrets: null, agents: null, automations: null },
};

/** Automation runs started per calendar month (UTC), spec §8; counted by the run engine. */
export const AUTOMATION_RUNS_PER_MONTH: Record<Tier, number | null> = {
  free: 100, pro: 5_000, team: 50_000, business: 500_000, enterprise: null,
};

const LABEL: Record<LimitedResource, string> = { vaults: 'Vault', secrets: 'Secret', agents: 'Agent', automations: 'Automation' };

/**
 * Call inside the creating transaction, before inserting; throws 403 resource_limit_exceeded. The
 * cap is the tier's, or the operator's override in force (org-limit-commands.ts).
 */
export async function assertBelowTierLimit(tx: EntityManager, orgId: string, resource: LimitedResource, adding = 1): Promise<void> {
  const { tier, overrideCap } = await capInForce(tx, orgId, resource);
  const cap = overrideCap ?? TIER_LIMITS[tier][resource];
  if (cap === null) return;
  const used = await countResource(tx, orgId, resource);
  if (used + adding > cap) {
    throw new Problem(403, `${LABEL[resource]} limit reached (${used}/${cap} on ${tier} tier). Upgrade your plan for more.`, {
      type: 'resource_limit_exceeded', title: 'Resource Limit Exceeded', extras: { resource, limit: cap, used, tier },
    });
  }
}

/** Features only some plans include (reference facts §20: CMEK Business+, Execution Intents Pro+). */
const FEATURE_TIERS = {
  cmek: { label: 'Customer-managed keys (CMEK)', tiers: ['business', 'enterprise'] as Tier[] },
  execution_intents: { label: 'Execution Intents (bindings)', tiers: ['pro', 'team', 'business', 'enterprise'] as Tier[] },
  // Spec §1 says Pro or higher; the reference says all tiers since v0.47.3 (facts §22). The spec
  // wins where it speaks (reference/README.md), so Pro or higher.
  treasury_wallets: { label: 'Treasury wallets', tiers: ['pro', 'team', 'business', 'enterprise'] as Tier[] },
  // Spec §4.15: the platform API is Pro tier or higher.
  platform_api: { label: 'Platform apps', tiers: ['pro', 'team', 'business', 'enterprise'] as Tier[] },
};

/** Throws 403 unless the organization's plan includes `feature`. */
export async function assertTierIncludes(em: EntityManager, orgId: string, feature: keyof typeof FEATURE_TIERS): Promise<void> {
  const tier = await tierInForce(em, orgId);
  const f = FEATURE_TIERS[feature];
  if (!f.tiers.includes(tier)) {
    throw new Problem(403, `${f.label} need the ${f.tiers.join(' or ')} plan; this organization is on the ${tier} plan`, {
      type: 'plan_feature_unavailable', title: 'Plan Feature Unavailable', extras: { feature, tier },
    });
  }
}
