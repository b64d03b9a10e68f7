// Input schemas of the IP rule routes. The reference's spellings are accepted too: `deny` for
// `block` and `label` for `description` (the spec's names win on output).
import { z } from 'zod';
import { idParam } from '../../input/fields.ts';
import { APPLIES_TO } from '../../../domain/org/ip-rule-policy.ts';

export const createIpRuleBody = z.object({
  cidr: z.string().trim().min(1).max(64),
  rule_type: z.enum(['allow', 'block', 'deny']),
  description: z.string().trim().max(200).optional(),
  label: z.string().trim().max(200).optional(),
  /** Which callers the rule binds: everyone (default), only humans, or only agents. */
  applies_to: z.enum(APPLIES_TO).default('all'),
}).transform((b) => ({
  cidr: b.cidr,
  ruleType: b.rule_type === 'deny' ? 'block' as const : b.rule_type,
  appliesTo: b.applies_to,
  description: b.description ?? b.label ?? null,
}));

export const ipRuleParams = z.object({ rule_id: idParam });
