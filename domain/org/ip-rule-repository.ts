// The ip_rules table: every statement about IP rule rows. Commands (ip-rule-commands.ts)
// decide; this file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppliesTo, RuleType } from './ip-rule-policy.ts';
import { isUuid } from '../ids.ts';

export type IpRuleRow = {
  id: string; org_id: string; cidr: string; rule_type: RuleType; applies_to: AppliesTo;
  description: string | null; created_by: string | null; created_at: string | Date;
};

export type NewIpRule = { id: string; orgId: string; cidr: string; ruleType: RuleType; appliesTo: AppliesTo; description: string | null; createdBy: string };

/** The organization's rules, oldest first. */
export function listIpRules(em: EntityManager, orgId: string): Promise<IpRuleRow[]> {
  return em.execute<IpRuleRow[]>('SELECT * FROM ip_rules WHERE org_id = ? ORDER BY created_at, id', [orgId]);
}

export async function insertIpRule(tx: EntityManager, r: NewIpRule): Promise<IpRuleRow> {
  const rows = await tx.execute<IpRuleRow[]>(
    `INSERT INTO ip_rules (id, org_id, cidr, rule_type, applies_to, description, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [r.id, r.orgId, r.cidr, r.ruleType, r.appliesTo, r.description, r.createdBy]);
  return rows[0]!;
}

/** Deletes the organization's rule; false when there is no such rule in that organization. */
export async function deleteIpRule(tx: EntityManager, orgId: string, ruleId: string): Promise<boolean> {
  if (!isUuid(ruleId)) return false;
  const rows = await tx.execute<{ id: string }[]>('DELETE FROM ip_rules WHERE id = ? AND org_id = ? RETURNING id', [ruleId, orgId]);
  return rows.length > 0;
}
