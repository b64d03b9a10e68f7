// The platform's accounts as operators list them (reference adminListUsers): each with its
// organization, the plan in force, the operator's overrides in force and this month's requests.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import { tierInForceSql } from '../limits/tier-repository.ts';
import { overrideInForceSql } from '../limits/org-limit-override-repository.ts';
import type { Tier } from '../limits/tier-limits.ts';

export type AdminUserRow = {
  id: string; email: string; display_name: string | null; role: string | null; auth_method: string; created_at: Date;
  org_id: string | null; org_name: string | null; tier: Tier | null; request_quota: number | null; is_sponsored: boolean | null; used: number | null;
};

/** `limit` accounts from `offset`, newest first, optionally those whose e-mail contains `search`; and how many match. */
export async function listAccounts(em: EntityManager, month: string, offset: number, limit: number, search: string | undefined): Promise<{ rows: AdminUserRow[]; total: number }> {
  const q = query(em);
  const matching = (qb: ReturnType<typeof q.selectFrom<'users as u'>>) =>
    search ? qb.where(sql<boolean>`strpos(lower(u.email), ${search.toLowerCase()}) > 0`) : qb;
  const rows = await matching(q.selectFrom('users as u'))
    .leftJoin('organizations as o', 'o.id', 'u.org_id')
    .leftJoin('org_limit_overrides as x', (j) => j.on(overrideInForceSql))
    .leftJoin('org_request_usage as r', (j) => j.onRef('r.org_id', '=', 'u.org_id').on('r.month', '=', month))
    .select([
      'u.id', 'u.email', 'u.display_name', 'u.role', 'u.auth_method', 'u.created_at', 'u.org_id', 'o.name as org_name',
      sql<Tier | null>`CASE WHEN o.id IS NULL THEN NULL ELSE ${tierInForceSql} END`.as('tier'),
      'x.request_quota', 'x.is_sponsored', 'r.used',
    ])
    .orderBy('u.created_at', 'desc').orderBy('u.id', 'desc').offset(offset).limit(limit).execute();
  const total = await matching(q.selectFrom('users as u')).select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
  return { rows: rows as AdminUserRow[], total: total.n };
}
