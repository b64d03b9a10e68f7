// GET /v1/billing/history (reference facts §16): the organization's latest billable requests,
// newest first. This process's waiting events are written first, so a caller sees its own
// requests; other api processes write theirs about once a second.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BillingEventLog } from './billing-event-log.ts';
import { latestBillingEvents, type BillingEventView } from './billing-event-repository.ts';

export type { BillingEventView };

export const HISTORY_LIMIT_MAX = 200;

export class BillingHistory {
  private readonly d: { db: () => EntityManager; log: BillingEventLog | null };

  constructor(deps: { db: () => EntityManager; log: BillingEventLog | null }) {
    this.d = deps;
  }

  async latest(orgId: string, limit: number): Promise<BillingEventView[]> {
    await this.d.log?.flush();
    return latestBillingEvents(this.d.db(), orgId, Math.min(Math.max(1, limit), HISTORY_LIMIT_MAX));
  }
}
