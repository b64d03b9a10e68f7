// The organizations table as the org commands lock and change it. Commands decide; this file only
// reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { tierInForceSql } from '../limits/tier-repository.ts';
import type { Tier } from '../limits/tier-limits.ts';

/**
 * Takes the organization's row lock until the transaction ends. Changes whose checks read several
 * rows of one organization (the last owner, the rule count and the caller's lockout) take it first,
 * so two concurrent changes cannot both pass a check that only one of them may.
 */
export async function lockOrganization(tx: EntityManager, orgId: string): Promise<void> {
  await query(tx).selectFrom('organizations').select('id').where('id', '=', orgId).forUpdate().execute();
}

/** An organization's plan after a change, and the plan it replaced (the tier that was in force). */
export type TierChange = Pick<Selectable<Database['organizations']>, 'id' | 'billing_tier' | 'billing_period_end'> & {
  previous_tier: Tier; previous_period_end: Date | null;
};

/**
 * Sets the tier and, for `periodDays` (null: no end), the period end; undefined for an unknown
 * organization. One statement: the CTE locks the row (so previous_* are the values this change
 * replaces, even under concurrent changes) and the update sets tier and period end together. The
 * period is computed with the database clock, the one the tier in force is compared against.
 */
export async function setBillingTier(em: EntityManager, orgId: string, tier: Tier, periodDays: number | null): Promise<TierChange | undefined> {
  const row = await query(em)
    .with('prev', (db) => db.selectFrom('organizations').select(['id', tierInForceSql.as('tier'), 'billing_period_end']).where('id', '=', orgId).forUpdate())
    .updateTable('organizations as o').from('prev')
    .set({ billing_tier: tier, billing_period_end: periodDays === null ? null : sql<Date>`now() + make_interval(days => ${periodDays}::int)` })
    .whereRef('o.id', '=', 'prev.id')
    .returning(['o.id', 'o.billing_tier', 'o.billing_period_end', 'prev.tier as previous_tier', 'prev.billing_period_end as previous_period_end'])
    .executeTakeFirst();
  if (!row) return undefined;
  // The plugin converts a column by its name: the renamed previous period end comes back as text.
  const previous = row.previous_period_end as Date | string | null;
  return { ...row, previous_period_end: previous === null ? null : new Date(previous) };
}
