// An approval another area opens for an action it holds back (an Intents transaction above its
// agent's tx_approval_threshold_eth): created inside that area's own database transaction, so the
// held action and its approval commit together, and its workflow started once they have. What
// happens on the decision is the resumer registered for its target_type (approval-resumers.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { createApproval, DEFAULT_APPROVAL_TTL_MS } from './approval-events.ts';
import type { ApprovalsClient } from './client.ts';

export type HeldActionApproval = {
  orgId: string; agentId: string; action: string; targetType: string; targetId: string; summary: Record<string, unknown>;
  reason: string | null; riskTier: number;
};

/** The approval opened, and what to call once the caller's transaction has committed. */
export type OpenedApproval = { approvalId: string; afterCommit: () => Promise<void> };

export class HeldActionApprovals {
  private readonly waits: Pick<ApprovalsClient, 'startWait'>;

  constructor(waits: Pick<ApprovalsClient, 'startWait'>) {
    this.waits = waits;
  }

  /** Pending for 24 hours, addressed to the agent's creator. */
  async open(tx: EntityManager, a: HeldActionApproval): Promise<OpenedApproval> {
    const row = await createApproval(tx, {
      orgId: a.orgId, userId: null, agentId: a.agentId, runId: null, action: a.action, targetType: a.targetType, targetId: a.targetId,
      riskTier: a.riskTier, summary: a.summary, reason: a.reason, expiresAt: new Date(Date.now() + DEFAULT_APPROVAL_TTL_MS),
    });
    return { approvalId: row.id, afterCommit: () => this.waits.startWait({ id: row.id, orgId: row.org_id }) };
  }
}
