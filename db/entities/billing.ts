// Billing: the monthly request usage and the budget leased to api processes (migration 0043;
// domain/billing), and the operator's overrides of an organization's limits (migration 0044;
// domain/limits).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './accounts.ts';
import { Organization } from './org.ts';

export const OrgRequestUsage = defineEntity({
  name: 'OrgRequestUsage',
  tableName: 'org_request_usage',
  properties: {
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').primary().deleteRule('cascade'),
    /** The first day of the UTC month. */
    month: p.date().primary().check('extract(day FROM month) = 1'),
    /** Requests handed out to api processes as budget this month (never above the quota). */
    leased: p.bigint('number').defaultRaw('0').check('leased >= 0'),
    /** Requests the api processes reported having served. */
    used: p.bigint('number').defaultRaw('0').check('used >= 0'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
  primaryKeys: ['org_id', 'month'],
});
export type OrgRequestUsageRow = InferEntity<typeof OrgRequestUsage>;

export const OrgLimitOverride = defineEntity({
  name: 'OrgLimitOverride',
  tableName: 'org_limit_overrides',
  properties: {
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').primary().deleteRule('cascade').updateRule('no action'),
    /** Monthly request quota in place of the tier's (the reference's free_tier_override); null: the tier's. */
    request_quota: p.bigint('number').nullable().check('request_quota >= 0'),
    /** Sponsored: no monthly request quota at all. */
    is_sponsored: p.boolean().default(false),
    max_vaults: p.integer().nullable().check('max_vaults >= 0'),
    max_secrets: p.integer().nullable().check('max_secrets >= 0'),
    max_agents: p.integer().nullable().check('max_agents >= 0'),
    max_automations: p.integer().nullable().check('max_automations >= 0'),
    /** After this the override is no longer in force; null: until replaced. */
    expires_at: p.datetime().nullable(),
    updated_by: () => p.manyToOne(User).mapToPk().fieldName('updated_by').nullable().deleteRule('set null'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
});
export type OrgLimitOverrideRow = InferEntity<typeof OrgLimitOverride>;
