// Organizations and what an organization owns directly: its invitations and IP rules
// (migrations 0001, 0006, 0018; domain/org, domain/limits).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './accounts.ts';

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p.uuid().primary(),
    name: p.text(),
    billing_tier: p.enum(['free', 'pro', 'team', 'business', 'enterprise']).default('free'),
    created_at: p.datetime().defaultRaw('now()'),
    /** End of a paid period granted by an operator; null: no end (0018). */
    billing_period_end: p.datetime().nullable(),
  },
});
export type OrganizationRow = InferEntity<typeof Organization>;

export const Invitation = defineEntity({
  name: 'Invitation',
  tableName: 'invitations',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    email: p.text(),
    role: p.enum(['admin', 'member']),
    token_digest: p.text().unique(),
    invited_by: () => p.manyToOne(User).mapToPk().fieldName('invited_by').nullable().deleteRule('set null'),
    expires_at: p.datetime(),
    accepted_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'invitations_org_idx', properties: ['org_id'] }],
});
export type InvitationRow = InferEntity<typeof Invitation>;

export const IpRule = defineEntity({
  name: 'IpRule',
  tableName: 'ip_rules',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    cidr: p.text(),
    rule_type: p.enum(['allow', 'block']),
    description: p.text().nullable(),
    created_by: p.uuid().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    applies_to: p.enum(['all', 'users', 'agents']).default('all'),
  },
  indexes: [{ name: 'ip_rules_org_idx', properties: ['org_id'] }],
});
export type IpRuleRow = InferEntity<typeof IpRule>;
