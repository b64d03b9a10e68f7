// IP allow/block rules (§4.13). A rule that would lock out the caller's own address is refused.
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { requireManager } from '../../../domain/org/roles.ts';
import { parseCidr, formatCidr } from '../../../domain/net/ip.ts';
import { ipDecision } from '../../../domain/org/ip-rule-cache.ts';
import { IpRule } from '../../../db/entities/index.ts';
import { iso } from '../../../domain/time.ts';
import { badRequest, notFound } from '../../../domain/errors.ts';
import { isUuid } from '../../../domain/ids.ts';

const MAX_RULES = 200;

const present = (r: IpRule) => ({
  id: r.id, org_id: r.orgId, cidr: r.cidr, rule_type: r.ruleType, description: r.description, label: r.description,
  created_by: r.createdBy, created_at: iso(r.createdAt),
});

export const ipRuleRoutes = [
  route({
    method: 'GET', path: '/v1/security/ip-rules', tag: 'Security', auth: 'user',
    summary: "List the organization's IP rules",
    success: { status: 200, description: '{rules}' }, errors: { 403: 'Not an owner or admin' },
    async handler({ ctx, principal, services: s }) {
      const em = s.em();
      await requireManager(em, principal);
      const rules = await em.find(IpRule, { orgId: principal.orgId }, { orderBy: { createdAt: 'asc' } });
      json(ctx, 200, { rules: rules.map(present) });
    },
  }),
  route({
    method: 'POST', path: '/v1/security/ip-rules', tag: 'Security', auth: 'user',
    summary: 'Create an IP rule (IPv4 or IPv6 CIDR; rule_type allow or block)',
    body: z.object({
      cidr: z.string().trim().min(1).max(64),
      // `deny` is the reference's spelling of `block`.
      rule_type: z.enum(['allow', 'block', 'deny']).transform((t) => (t === 'deny' ? 'block' : t)),
      description: z.string().trim().max(200).optional(),
      label: z.string().trim().max(200).optional(),
    }),
    success: { status: 201, description: 'Created' }, errors: { 400: 'Invalid CIDR, or the rule would lock you out', 403: 'Not an owner or admin' },
    async handler({ ctx, body, principal, services: s }) {
      const cidr = parseCidr(body.cidr);
      if (!cidr) throw badRequest(`cidr: "${body.cidr}" is not an IPv4 or IPv6 CIDR block (e.g. 203.0.113.0/24 or 2001:db8::/32)`);
      const em = s.em();
      await requireManager(em, principal);
      const rule = await em.transactional(async (tx) => {
        await tx.execute('SELECT id FROM organizations WHERE id = ? FOR UPDATE', [principal.orgId]);
        const existing = await tx.find(IpRule, { orgId: principal.orgId });
        if (existing.length >= MAX_RULES) throw badRequest(`An organization can have at most ${MAX_RULES} IP rules`);
        const after = { allow: [] as ReturnType<typeof parseCidr>[], block: [] as ReturnType<typeof parseCidr>[] };
        for (const r of existing) after[r.ruleType].push(parseCidr(r.cidr));
        after[body.rule_type].push(cidr);
        const rules = { allow: after.allow.filter((c) => c !== null), block: after.block.filter((c) => c !== null) };
        if (ipDecision(rules, ctx.state.clientIp) !== 'allow') {
          throw badRequest(`This rule would block your own address (${ctx.state.clientIp}); add an allow rule for it first`);
        }
        const r = tx.create(IpRule, {
          id: randomUUID(), orgId: principal.orgId, cidr: formatCidr(cidr), ruleType: body.rule_type,
          description: body.description ?? body.label ?? null, createdBy: principal.id, createdAt: new Date(),
        });
        await tx.flush();
        await s.ipRules.announceChange(tx, principal.orgId);
        return r;
      });
      await auditAction(ctx, s, 'ip_rule.create', { resourceType: 'ip_rule', resourceId: rule.id, details: { cidr: rule.cidr, rule_type: rule.ruleType } });
      json(ctx, 201, present(rule));
    },
  }),
  route({
    method: 'DELETE', path: '/v1/security/ip-rules/:rule_id', tag: 'Security', auth: 'user',
    summary: 'Delete an IP rule',
    params: z.object({ rule_id: z.string() }),
    success: { status: 204, description: 'Deleted' }, errors: { 403: 'Not an owner or admin', 404: 'No such rule' },
    async handler({ ctx, params, principal, services: s }) {
      const em = s.em();
      await requireManager(em, principal);
      if (!isUuid(params.rule_id)) throw notFound('IP rule');
      const deleted = await em.transactional(async (tx) => {
        const rows = await tx.execute<{ id: string }[]>('DELETE FROM ip_rules WHERE id = ? AND org_id = ? RETURNING id', [params.rule_id, principal.orgId]);
        if (rows.length > 0) await s.ipRules.announceChange(tx, principal.orgId);
        return rows.length > 0;
      });
      if (!deleted) throw notFound('IP rule');
      await auditAction(ctx, s, 'ip_rule.delete', { resourceType: 'ip_rule', resourceId: params.rule_id });
      ctx.status = 204;
    },
  }),
];
