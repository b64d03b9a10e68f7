// IP allow/block rules (§4.13), managed by owners and admins. A rule that would lock out the
// caller's own address is refused; every change reaches all replicas' caches at commit.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { IpRuleCache } from './ip-rule-cache.ts';
import { callerOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { lockOrganization } from './organization-repository.ts';
import { ipDecision, rulesBinding, type AppliesTo, type RuleType } from './ip-rule-policy.ts';
import { deleteIpRule, insertIpRule, listIpRules, type IpRuleRow } from './ip-rule-repository.ts';
import { parseCidr, formatCidr } from '../net/ip.ts';
import { badRequest, notFound } from '../errors.ts';

export const MAX_IP_RULES = 200;

export type IpRuleDeps = { db: () => EntityManager; audit: ActionAudit; cache: Pick<IpRuleCache, 'announceChange'> };
export type NewRuleInput = { cidr: string; ruleType: RuleType; appliesTo: AppliesTo; description: string | null };

export class IpRuleCommands {
  private readonly d: IpRuleDeps;

  constructor(deps: IpRuleDeps) {
    this.d = deps;
  }

  async list(ctx: ActionContext): Promise<IpRuleRow[]> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    return listIpRules(em, p.orgId);
  }

  async create(ctx: ActionContext, input: NewRuleInput): Promise<IpRuleRow> {
    const p = callerOf(ctx);
    const cidr = parseCidr(input.cidr);
    if (!cidr) throw badRequest(`cidr: "${input.cidr}" is not an IPv4 or IPv6 CIDR block (e.g. 203.0.113.0/24 or 2001:db8::/32)`);
    const em = this.d.db();
    await requireManager(em, p);
    const rule = await em.transactional(async (tx) => {
      await lockOrganization(tx, p.orgId);
      const existing = await listIpRules(tx, p.orgId);
      if (existing.length >= MAX_IP_RULES) throw badRequest(`An organization can have at most ${MAX_IP_RULES} IP rules`);
      const candidate = { cidr: formatCidr(cidr), rule_type: input.ruleType, applies_to: input.appliesTo };
      // Decided as the IP filter will decide the caller's next request, with the new rule in place.
      if (ipDecision(rulesBinding([...existing, candidate], p.type), ctx.clientIp) !== 'allow') {
        throw badRequest(`This rule would block your own address (${ctx.clientIp}); add an allow rule for it first`);
      }
      const row = await insertIpRule(tx, {
        id: randomUUID(), orgId: p.orgId, cidr: candidate.cidr, ruleType: input.ruleType, appliesTo: input.appliesTo,
        description: input.description, createdBy: p.id,
      });
      await this.d.cache.announceChange(tx, p.orgId);
      return row;
    });
    await this.d.audit.record(ctx, 'ip_rule.create', {
      resourceType: 'ip_rule', resourceId: rule.id, details: { cidr: rule.cidr, rule_type: rule.rule_type, applies_to: rule.applies_to },
    });
    return rule;
  }

  async delete(ctx: ActionContext, ruleId: string): Promise<void> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    const deleted = await em.transactional(async (tx) => {
      const gone = await deleteIpRule(tx, p.orgId, ruleId);
      if (gone) await this.d.cache.announceChange(tx, p.orgId);
      return gone;
    });
    if (!deleted) throw notFound('IP rule');
    await this.d.audit.record(ctx, 'ip_rule.delete', { resourceType: 'ip_rule', resourceId: ruleId });
  }
}
