// The quota meter's store on Postgres (request-usage-repository.ts): the quota from the tier in
// force and the operator's override (request-quotas.ts), leases and settlements as their statements.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { QuotaStore } from './quota-meter.ts';
import { requestQuotaOf } from './request-quotas.ts';
import { leaseRequests, planRow, settleUsage } from './request-usage-repository.ts';

export function postgresQuotaStore(db: () => EntityManager): QuotaStore {
  return {
    async planOf(orgId, month) {
      const row = await planRow(db(), orgId, month);
      // An organization that is gone has no quota to give: its requests fail on their own.
      return row ? { quota: requestQuotaOf(row.tier, row.override), used: row.used } : { quota: 0, used: 0 };
    },
    lease: (orgId, month, want, quota) => leaseRequests(db(), orgId, month, want, quota),
    settle: (rows) => settleUsage(db(), rows),
  };
}
