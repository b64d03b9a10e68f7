// What an organization's IP rules decide for one caller, as pure code: which rules bind a
// principal (`applies_to`) and whether an address passes them. The IP filter stage and the
// lockout check of a new rule both decide through here, so they cannot disagree.
import { parseCidr, cidrContains, type Cidr } from '../net/ip.ts';
import type { PrincipalType } from '../auth/principal.ts';

export const APPLIES_TO = ['all', 'users', 'agents'] as const;
/** Which callers a rule binds: everyone, only humans (users) or only agents. */
export type AppliesTo = (typeof APPLIES_TO)[number];
export type RuleType = 'allow' | 'block';

/** The rules that bind one kind of principal, parsed. */
export type OrgRules = { allow: Cidr[]; block: Cidr[] };
export type RuleSpec = { cidr: string; rule_type: RuleType; applies_to: AppliesTo };

export function bindsPrincipal(appliesTo: AppliesTo, type: PrincipalType): boolean {
  return appliesTo === 'all' || (appliesTo === 'users' ? type === 'user' : type === 'agent');
}

/** The rules among `specs` that bind principals of `type`; unparsable CIDRs are skipped. */
export function rulesBinding(specs: RuleSpec[], type: PrincipalType): OrgRules {
  const rules: OrgRules = { allow: [], block: [] };
  for (const r of specs) {
    if (!bindsPrincipal(r.applies_to, type)) continue;
    const c = parseCidr(r.cidr);
    if (c) rules[r.rule_type].push(c);
  }
  return rules;
}

/** Block wins; when allow rules exist, only their addresses pass. */
export function ipDecision(rules: OrgRules, ip: string): 'allow' | 'block' | 'not_allowed' {
  if (rules.block.some((c) => cidrContains(c, ip))) return 'block';
  if (rules.allow.length > 0 && !rules.allow.some((c) => cidrContains(c, ip))) return 'not_allowed';
  return 'allow';
}
