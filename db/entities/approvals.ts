// Approval requests a run (or an agent action) waits on (migration 0012; domain/approvals).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';
import { AutomationRun } from './automations.ts';
import { User } from './accounts.ts';

export const Approval = defineEntity({
  name: 'Approval',
  tableName: 'approvals',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    /** The human the request is addressed to. */
    user_id: p.uuid().nullable(),
    agent_id: p.uuid().nullable(),
    run_id: () => p.manyToOne(AutomationRun).mapToPk().fieldName('run_id').nullable().deleteRule('cascade'),
    action: p.text(),
    target_type: p.text(),
    target_id: p.text(),
    risk_tier: p.smallint().default(1).check('risk_tier >= 1 AND risk_tier <= 3'),
    status: p.enum(['pending', 'approved', 'rejected', 'expired']).default('pending'),
    summary: p.json<Record<string, unknown>>().default('{}'),
    reason: p.text().nullable(),
    decision_reason: p.text().nullable(),
    decided_by: p.uuid().nullable(),
    decided_at: p.datetime().nullable(),
    expires_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [
    { name: 'approvals_org_idx', columns: [{ name: 'org_id' }, { name: 'created_at', sort: 'DESC' }] },
    { name: 'approvals_pending_idx', properties: ['org_id'], where: "status = 'pending'" },
  ],
});
export type ApprovalRow = InferEntity<typeof Approval>;

/**
 * A quick-decide link mailed to an owner or admin (0036): the SHA-256 digest of its token only,
 * single use, 7 days.
 */
export const ApprovalQuickLink = defineEntity({
  name: 'ApprovalQuickLink',
  tableName: 'approval_quick_links',
  properties: {
    id: p.uuid().primary(),
    approval_id: () => p.manyToOne(Approval).mapToPk().fieldName('approval_id').deleteRule('cascade'),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    token_digest: p.text(),
    expires_at: p.datetime(),
    used_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  uniques: [
    { name: 'approval_quick_links_digest_unique', properties: ['token_digest'] },
    { name: 'approval_quick_links_one_per_user', properties: ['approval_id', 'user_id'] },
  ],
  indexes: [{ name: 'approval_quick_links_user_idx', properties: ['user_id'] }],
});
export type ApprovalQuickLinkRow = InferEntity<typeof ApprovalQuickLink>;
