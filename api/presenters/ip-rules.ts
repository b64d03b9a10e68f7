// IP rules (spec §2.10, reference IpRuleResponse and IpRulesListResponse). The spec's
// `description` is also sent as the reference's `label`; `rule_type` is the spec's `block`
// where the reference says `deny`. Optional fields are omitted rather than sent as null.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways, omitNull } from './registry.ts';
import { APPLIES_TO } from '../../domain/org/ip-rule-policy.ts';
import type { IpRuleRow } from '../../domain/org/ip-rule-repository.ts';

export const IpRuleSchema = shape('IpRule', z.object({
  id: uuid,
  org_id: uuid,
  cidr: z.string(),
  rule_type: z.enum(['allow', 'block']),
  applies_to: z.enum(APPLIES_TO),
  description: z.string().optional(),
  label: z.string().optional(),
  created_by: z.string().optional(),
  created_at: timestamp,
}));

export const IpRuleListSchema = shape('IpRuleList', z.object({ rules: z.array(IpRuleSchema) }));

export function presentIpRule(r: IpRuleRow): z.output<typeof IpRuleSchema> {
  return {
    id: r.id,
    org_id: r.org_id,
    cidr: r.cidr,
    rule_type: r.rule_type,
    applies_to: r.applies_to,
    description: omitNull(r.description),
    label: omitNull(r.description),
    created_by: omitNull(r.created_by),
    created_at: isoAlways(r.created_at),
  };
}

export const presentIpRuleList = (rules: IpRuleRow[]): z.output<typeof IpRuleListSchema> => ({ rules: rules.map(presentIpRule) });
