// The ip_rules table: every statement about IP rule rows. Commands (ip-rule-commands.ts) and the
// cache (ip-rule-cache.ts) decide; this file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import type { AppliesTo, RuleType } from './ip-rule-policy.ts';
import { notifySql } from '../cache/invalidation-bus.ts';
import { isUuid } from '../ids.ts';

export type IpRuleRow = Selectable<Database['ip_rules']>;

export type NewIpRule = { id: string; orgId: string; cidr: string; ruleType: RuleType; appliesTo: AppliesTo; description: string | null; createdBy: string };

/** The organization's rules, oldest first. */
export function listIpRules(em: EntityManager, orgId: string): Promise<IpRuleRow[]> {
  return query(em).selectFrom('ip_rules').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
}

export function insertIpRule(tx: EntityManager, r: NewIpRule): Promise<IpRuleRow> {
  return query(tx).insertInto('ip_rules')
    .values({ id: r.id, org_id: r.orgId, cidr: r.cidr, rule_type: r.ruleType, applies_to: r.appliesTo, description: r.description, created_by: r.createdBy })
    .returningAll().executeTakeFirstOrThrow();
}

/** Deletes the organization's rule; false when there is no such rule in that organization. */
export async function deleteIpRule(tx: EntityManager, orgId: string, ruleId: string): Promise<boolean> {
  if (!isUuid(ruleId)) return false;
  const rows = await query(tx).deleteFrom('ip_rules').where('id', '=', ruleId).where('org_id', '=', orgId).returning('id').execute();
  return rows.length > 0;
}

/** Tells every replica to drop its cached rules of the organization, when the transaction commits (pg_notify: no ORM form). */
export async function announceIpRulesChanged(tx: EntityManager, orgId: string): Promise<void> {
  await tx.execute(notifySql, [JSON.stringify({ kind: 'ip_rules_changed', orgId })]);
}
