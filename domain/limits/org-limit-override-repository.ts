// The statements behind the operator's overrides of an organization's limits (migration 0044;
// org-limit-commands.ts decides who may set them). An override is in force while its expires_at is
// unset or ahead; `inForceJoin` lets the plan reads (tier caps, the request quota) pick it up in the
// statement they already run.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import type { LimitedResource, Tier } from './tier-limits.ts';
import { tierInForceSql } from './tier-repository.ts';

export type OrgLimitOverrideRecord = {
  org_id: string;
  request_quota: number | null;
  is_sponsored: boolean;
  max_vaults: number | null;
  max_secrets: number | null;
  max_agents: number | null;
  max_automations: number | null;
  expires_at: Date | null;
  updated_at: Date;
};

/** What an operator sets: the whole override (what is left out goes back to the tier's figure). */
export type OrgLimitOverrideValues = Omit<OrgLimitOverrideRecord, 'org_id' | 'updated_at'>;

/** The override column that caps `resource`. */
export const CAP_COLUMN = {
  vaults: 'max_vaults', secrets: 'max_secrets', agents: 'max_agents', automations: 'max_automations',
} as const satisfies Record<LimitedResource, keyof OrgLimitOverrideRecord>;

/** The join condition of an override in force for organization `o` (alias `x`). */
export const overrideInForceSql = sql<boolean>`x.org_id = o.id AND (x.expires_at IS NULL OR x.expires_at > now())`;

/** The organization's tier in force and its override as stored (in force or not); undefined: no such organization. */
export async function limitsOf(em: EntityManager, orgId: string): Promise<{ tier: Tier; override: OrgLimitOverrideRecord | null } | undefined> {
  const row = await query(em).selectFrom('organizations').select(tierInForceSql.as('tier')).where('id', '=', orgId).executeTakeFirst();
  if (!row) return undefined;
  return { tier: row.tier, override: (await overrideOf(em, orgId)) ?? null };
}

/**
 * The tier in force and the operator's cap on `resource` in force (null: the tier's), locking the
 * organization row as tierInForce's `forUpdate` does. Tier free for an unknown organization.
 */
export async function capInForce(em: EntityManager, orgId: string, resource: LimitedResource): Promise<{ tier: Tier; overrideCap: number | null }> {
  const row = await query(em).selectFrom('organizations as o')
    .leftJoin('org_limit_overrides as x', (j) => j.on(overrideInForceSql))
    .select([tierInForceSql.as('tier'), sql.ref<number | null>(`x.${CAP_COLUMN[resource]}`).as('cap')])
    .where('o.id', '=', orgId).forUpdate('o').executeTakeFirst();
  return { tier: row?.tier ?? 'free', overrideCap: row?.cap ?? null };
}

/** The organization's override as stored, in force or not; undefined when it has none. */
export async function overrideOf(em: EntityManager, orgId: string): Promise<OrgLimitOverrideRecord | undefined> {
  return query(em).selectFrom('org_limit_overrides').selectAll().where('org_id', '=', orgId).executeTakeFirst();
}

/**
 * Replaces the organization's override; answers the stored row and the one it replaced. Runs
 * under the organization row's lock (the caps are checked under it too), so a create racing the
 * change sees one or the other. Undefined row: no such organization.
 */
export async function replaceOverride(em: EntityManager, orgId: string, values: OrgLimitOverrideValues, by: string):
Promise<{ row: OrgLimitOverrideRecord; previous: OrgLimitOverrideRecord | undefined } | undefined> {
  return em.transactional(async (tx) => {
    const q = query(tx);
    const org = await q.selectFrom('organizations').select('id').where('id', '=', orgId).forUpdate().executeTakeFirst();
    if (!org) return undefined;
    const previous = await overrideOf(tx, orgId);
    const row = await q.insertInto('org_limit_overrides').values({ org_id: orgId, ...values, updated_by: by })
      .onConflict((oc) => oc.column('org_id').doUpdateSet({ ...values, updated_by: by, updated_at: sql<Date>`now()` }))
      .returningAll().executeTakeFirstOrThrow();
    return { row: row as OrgLimitOverrideRecord, previous };
  });
}
