// Billing: the monthly request usage and the budget leased to api processes (migration 0043;
// domain/billing).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
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
