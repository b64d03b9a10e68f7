// The access-request side of the approval queue: what a decision made in /v1/approvals does to
// the treasury access request its approval stands for (target_type `treasury_access_request`,
// target_id the request's id). Shaped as the queue's per-target resumer (approved / refused), so
// registering it is one line where the queue lists its resumers. Idempotent both ways: a request
// already resolved (through the treasury routes, or an earlier delivery) is left as it is.
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveAccessRequestFromApproval } from './access-commands.ts';

/** The fields of an approval row this needs. */
type DecidedApproval = { target_id: string; status: string; decided_by: string | null };

export function accessRequestResumer(db: () => EntityManager) {
  return {
    /** Approved in the queue: the agent's request is approved (true when this call approved it). */
    async approved(a: DecidedApproval): Promise<boolean> {
      return (await db().transactional((tx) => resolveAccessRequestFromApproval(tx, a.target_id, 'approved', a.decided_by))) !== null;
    },
    /** Rejected (or expired) in the queue: the request is denied. */
    async refused(a: DecidedApproval): Promise<void> {
      await db().transactional((tx) => resolveAccessRequestFromApproval(tx, a.target_id, 'rejected', a.decided_by));
    },
  };
}
