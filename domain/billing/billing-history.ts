// GET /v1/billing/history (reference facts §16): the organization's latest billable requests,
// newest first. Each is the audit record of the request (its own action's, e.g. secret.read, or
// the generic one of a failure), which carries the charge: durable before the answer, and no
// write of its own on the hot path.
import type { EntityManager } from '@mikro-orm/postgresql';
import { latestCharges, type BillingEventView } from './billing-history-repository.ts';

export type { BillingEventView };

export const HISTORY_LIMIT_MAX = 200;

export class BillingHistory {
  private readonly d: { db: () => EntityManager };

  constructor(deps: { db: () => EntityManager }) {
    this.d = deps;
  }

  latest(orgId: string, limit: number): Promise<BillingEventView[]> {
    return latestCharges(this.d.db(), orgId, Math.min(Math.max(1, limit), HISTORY_LIMIT_MAX));
  }
}
