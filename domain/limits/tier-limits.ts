// Per-tier caps on vaults, secrets and agents (reference facts §20) and on automations (spec §8);
// `null` = unlimited.
// Checked under a lock on the organization row, so concurrent creates cannot overshoot.
// Every check reads the tier in force (tierInForce), never organizations.billing_tier directly.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Problem } from '../errors.ts';

export type Tier = 'free' | 'pro' | 'team' | 'business' | 'enterprise';
/** Every tier, cheapest first (the CHECK of organizations.billing_tier). */
export const TIERS: readonly Tier[] = ['free', 'pro', 'team', 'business', 'enterprise'];

/**
 * The tier in force, as SQL over `organizations`: a paid tier whose period has ended
 * (billing_period_end, migration 0018) counts as free; no end (NULL) means it lasts.
 */
export const TIER_IN_FORCE_SQL =
  "CASE WHEN billing_period_end IS NOT NULL AND billing_period_end <= now() THEN 'free' ELSE billing_tier END";

/**
 * The organization's tier in force (free for an unknown organization). `forUpdate` locks the
 * organization row until the transaction ends: the resource caps count under that lock, and a
 * tier change (domain/org/billing-tier-commands.ts) waits for it.
 */
export async function tierInForce(em: EntityManager, orgId: string, opts: { forUpdate?: boolean } = {}): Promise<Tier> {
  const rows = await em.execute<{ tier: Tier }[]>(
    `SELECT ${TIER_IN_FORCE_SQL} AS tier FROM organizations WHERE id = ?${opts.forUpdate ? ' FOR UPDATE' : ''}`, [orgId]);
  return rows[0]?.tier ?? 'free';
}
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

const COUNT_SQL: Record<LimitedResource, string> = {
  vaults: "SELECT count(*)::int AS n FROM vaults WHERE org_id = ? AND deleted_at IS NULL AND kind = 'standard'",
  secrets: "SELECT count(*)::int AS n FROM secrets s JOIN vaults v ON v.id = s.vault_id WHERE s.org_id = ? AND s.deleted_at IS NULL AND v.kind = 'standard'",
  agents: "SELECT count(*)::int AS n FROM agents WHERE org_id = ? AND status <> 'inactive'",
  automations: 'SELECT count(*)::int AS n FROM automations WHERE org_id = ?',
};

const LABEL: Record<LimitedResource, string> = { vaults: 'Vault', secrets: 'Secret', agents: 'Agent', automations: 'Automation' };

/** Call inside the creating transaction, before inserting; throws 403 resource_limit_exceeded. */
export async function assertBelowTierLimit(tx: EntityManager, orgId: string, resource: LimitedResource, adding = 1): Promise<void> {
  const tier = await tierInForce(tx, orgId, { forUpdate: true });
  const cap = TIER_LIMITS[tier][resource];
  if (cap === null) return;
  const used = (await tx.execute<{ n: number }[]>(COUNT_SQL[resource], [orgId]))[0]!.n;
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
