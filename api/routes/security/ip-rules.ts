// IP allow/block rules (§4.13). A rule that would lock out the caller's own address is refused.
import { route } from '../../route.ts';
import { createIpRuleBody, ipRuleParams } from './schema.ts';
import { IpRuleSchema, IpRuleListSchema, presentIpRule, presentIpRuleList } from '../../presenters/ip-rules.ts';

export const ipRuleRoutes = [
  route({
    method: 'GET', path: '/v1/security/ip-rules', tag: 'Security', auth: 'user',
    summary: "List the organization's IP rules",
    success: { status: 200, description: 'The rules', schema: IpRuleListSchema },
    errors: { 403: 'Not an owner or admin' },
    handler: async ({ action, services: s }) => presentIpRuleList(await s.ipRuleAdmin.list(action)),
  }),
  route({
    method: 'POST', path: '/v1/security/ip-rules', tag: 'Security', auth: 'user',
    summary: 'Create an IP rule (IPv4 or IPv6 CIDR; rule_type allow or block; applies_to all, users or agents)',
    body: createIpRuleBody,
    success: { status: 201, description: 'The rule', schema: IpRuleSchema },
    errors: { 400: 'Invalid CIDR, or the rule would lock you out', 403: 'Not an owner or admin' },
    handler: async ({ body, action, services: s }) => presentIpRule(await s.ipRuleAdmin.create(action, body)),
  }),
  route({
    method: 'DELETE', path: '/v1/security/ip-rules/:rule_id', tag: 'Security', auth: 'user',
    summary: 'Delete an IP rule',
    params: ipRuleParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: 'Not an owner or admin', 404: 'No such rule' },
    handler: async ({ params, action, services: s }) => s.ipRuleAdmin.delete(action, params.rule_id),
  }),
];
