// The statements behind the tier limits (tier-limits.ts decides): the organization's tier in force
// and the counts of what it holds.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import type { Tier, LimitedResource } from './tier-limits.ts';

/**
 * The tier in force, as an expression over `organizations`: a paid tier whose period has ended
 * (billing_period_end, migration 0018) counts as free; no end (NULL) means it lasts. Repositories
 * that read an organization's plan select it (domain/org, the account export).
 */
export const tierInForceSql = sql<Tier>`CASE WHEN billing_period_end IS NOT NULL AND billing_period_end <= now() THEN 'free' ELSE billing_tier END`;

/**
 * The organization's tier in force (free for an unknown organization). `forUpdate` locks the
 * organization row until the transaction ends: the resource caps count under that lock, and a
 * tier change (domain/org/billing-tier-commands.ts) waits for it.
 */
export async function tierInForce(em: EntityManager, orgId: string, opts: { forUpdate?: boolean } = {}): Promise<Tier> {
  const row = await query(em).selectFrom('organizations').select(tierInForceSql.as('tier')).where('id', '=', orgId)
    .$if(opts.forUpdate === true, (qb) => qb.forUpdate())
    .executeTakeFirst();
  return row?.tier ?? 'free';
}

/** How many of `resource` the organization holds now (what its tier caps). */
export async function countResource(em: EntityManager, orgId: string, resource: LimitedResource): Promise<number> {
  const q = query(em);
  const n = sql<number>`count(*)::int`.as('n');
  switch (resource) {
    case 'vaults':
      return (await q.selectFrom('vaults').select(n)
        .where('org_id', '=', orgId).where('deleted_at', 'is', null).where('kind', '=', 'standard').executeTakeFirstOrThrow()).n;
    case 'secrets':
      return (await q.selectFrom('secrets as s').innerJoin('vaults as v', 'v.id', 's.vault_id').select(n)
        .where('s.org_id', '=', orgId).where('s.deleted_at', 'is', null).where('v.kind', '=', 'standard').executeTakeFirstOrThrow()).n;
    case 'agents':
      return (await q.selectFrom('agents').select(n).where('org_id', '=', orgId).where('status', '<>', 'inactive').executeTakeFirstOrThrow()).n;
    case 'automations':
      return (await q.selectFrom('automations').select(n).where('org_id', '=', orgId).executeTakeFirstOrThrow()).n;
  }
}
