// Each organization's IP rules, parsed once and kept in memory; dropped on every replica when
// a rule changes (LISTEN/NOTIFY), so the IP filter costs no round trip on a warm cache.
import type { EntityManager } from '@mikro-orm/postgresql';
import { parseCidr, cidrContains, type Cidr } from '../net/ip.ts';
import { notifySql, type InvalidationBus } from '../cache/invalidation-bus.ts';

type OrgRules = { allow: Cidr[]; block: Cidr[] };

export class IpRuleCache {
  private readonly byOrg = new Map<string, OrgRules>();
  private readonly em: () => EntityManager;
  // Bumped on every invalidation: a read that started before a change must not be cached after it.
  private generation = 0;

  constructor(em: () => EntityManager, bus: InvalidationBus) {
    this.em = em;
    bus.onMessage((m) => { if (m.kind === 'ip_rules_changed') this.forget(m.orgId); });
    bus.onReconnect(async () => { this.generation++; this.byOrg.clear(); });
  }

  private forget(orgId: string): void {
    this.generation++;
    this.byOrg.delete(orgId);
  }

  async rulesFor(orgId: string): Promise<OrgRules> {
    const hit = this.byOrg.get(orgId);
    if (hit) return hit;
    const startedAt = this.generation;
    const rows = await this.em().execute<{ cidr: string; rule_type: 'allow' | 'block' }[]>('SELECT cidr, rule_type FROM ip_rules WHERE org_id = ?', [orgId]);
    const rules: OrgRules = { allow: [], block: [] };
    for (const r of rows) {
      const c = parseCidr(r.cidr);
      if (c) rules[r.rule_type].push(c);
    }
    if (this.generation === startedAt) this.byOrg.set(orgId, rules);
    return rules;
  }

  async announceChange(em: EntityManager, orgId: string): Promise<void> {
    await em.execute(notifySql, [JSON.stringify({ kind: 'ip_rules_changed', orgId })]);
    this.forget(orgId);
  }
}

/** Block wins; when allow rules exist, only their addresses pass. */
export function ipDecision(rules: OrgRules, ip: string): 'allow' | 'block' | 'not_allowed' {
  if (rules.block.some((c) => cidrContains(c, ip))) return 'block';
  if (rules.allow.length > 0 && !rules.allow.some((c) => cidrContains(c, ip))) return 'not_allowed';
  return 'allow';
}
