// Per-tier caps on vaults, secrets and agents (reference facts §20) and on automations (spec §8);
// `null` = unlimited.
// Checked under a lock on the organization row, so concurrent creates cannot overshoot.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Problem } from '../errors.ts';

export type Tier = 'free' | 'pro' | 'team' | 'business' | 'enterprise';
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
  const org = await tx.execute<{ billing_tier: Tier }[]>('SELECT billing_tier FROM organizations WHERE id = ? FOR UPDATE', [orgId]);
  const tier = org[0]?.billing_tier ?? 'free';
  const cap = TIER_LIMITS[tier][resource];
  if (cap === null) return;
  const used = (await tx.execute<{ n: number }[]>(COUNT_SQL[resource], [orgId]))[0]!.n;
  if (used + adding > cap) {
    throw new Problem(403, `${LABEL[resource]} limit reached (${used}/${cap} on ${tier} tier). Upgrade your plan for more.`, {
      type: 'resource_limit_exceeded', title: 'Resource Limit Exceeded', extras: { resource, limit: cap, used, tier },
    });
  }
}
