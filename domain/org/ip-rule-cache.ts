// Each organization's IP rules, parsed once and kept in memory; dropped on every replica when
// a rule changes (LISTEN/NOTIFY), so the IP filter costs no round trip on a warm cache.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PrincipalType } from '../auth/principal.ts';
import type { InvalidationBus } from '../cache/invalidation-bus.ts';
import { rulesBinding, type OrgRules } from './ip-rule-policy.ts';
import { announceIpRulesChanged, listIpRules } from './ip-rule-repository.ts';

export { ipDecision, type OrgRules } from './ip-rule-policy.ts';

/** The rules that bind each kind of principal (a rule's `applies_to`). */
type ByPrincipal = Record<PrincipalType, OrgRules>;

export class IpRuleCache {
  private readonly byOrg = new Map<string, ByPrincipal>();
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

  /** The organization's rules that bind a principal of `type`. */
  async rulesFor(orgId: string, type: PrincipalType): Promise<OrgRules> {
    const hit = this.byOrg.get(orgId);
    if (hit) return hit[type];
    const startedAt = this.generation;
    const rows = await listIpRules(this.em(), orgId);
    // A platform app acting through a connection is a machine caller: the rules that bind agents bind it.
    const rules: ByPrincipal = { user: rulesBinding(rows, 'user'), agent: rulesBinding(rows, 'agent'), platform: rulesBinding(rows, 'agent') };
    if (this.generation === startedAt) this.byOrg.set(orgId, rules);
    return rules[type];
  }

  async announceChange(em: EntityManager, orgId: string): Promise<void> {
    await announceIpRulesChanged(em, orgId);
    this.forget(orgId);
  }
}
