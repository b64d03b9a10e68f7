// How a human's decision on a run's approval reaches the run: a Temporal Update on the run's
// workflow, whose handler applies the decision (approval row, event, the run's resume) in an
// activity. The approvals area sees only RunApprovalGate; null means the run no longer waits on
// that approval (decided already, expired, or the run ended) and becomes a 409 there.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RunApprovalGate } from '../approvals/approval-commands.ts';
import type { ApprovalDecision } from '../approvals/approval-events.ts';
import type { ApprovalRow } from '../approvals/approval-repository.ts';
import { findApprovalById } from '../approvals/approval-repository.ts';
import type { AutomationsClient } from './client.ts';

export class RunApprovalUpdates implements RunApprovalGate {
  private readonly db: () => EntityManager;
  private readonly client: Pick<AutomationsClient, 'decideApproval'>;

  constructor(db: () => EntityManager, client: Pick<AutomationsClient, 'decideApproval'>) {
    this.db = db;
    this.client = client;
  }

  async decide(runId: string, d: ApprovalDecision): Promise<ApprovalRow | null> {
    const outcome = await this.client.decideApproval(runId, d);
    if (outcome === null || outcome === 'not_applicable' || outcome === 'no_workflow') return null;
    return findApprovalById(this.db(), d.approvalId);
  }
}
