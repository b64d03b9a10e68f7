// The shares area's Temporal client: the only place that starts share-access digest workflows and
// spells their IDs and task queue. One digest per share, keyed by the internal shares.id (never
// the link): while one runs it absorbs new opens (their rows wait in share_accesses until its next
// round), so a burst of opens becomes one mail. A digest that has closed may run again for the
// next open (Temporal's default reuse policy, ALLOW_DUPLICATE, allows a closed ID to start again).
import type { Client } from '@temporalio/client';
import type { shareAccessDigestWorkflow } from '../../workflows/shares/share-access-digest.ts';
import type { Logger } from '../log.ts';
import { startOrLeaveToSweeper } from '../temporal/start-workflow.ts';

export const SHARES_TASK_QUEUE = 'vault-shares';

/** One running digest per share: a repeated start (each open, then the sweeper) reuses the run. */
export const shareAccessDigestWorkflowId = (shareId: string) => `share-access-digest:${shareId}`;

export class SharesClient {
  private readonly temporal: Client;
  private readonly log: Logger;

  constructor(temporal: Client, log: Logger) {
    this.temporal = temporal;
    this.log = log;
  }

  /**
   * Makes sure a digest of the share's unmailed opens is running; call after the open's
   * share_accesses row commits. Never throws: the sweeper starts digests of rows left unmailed.
   */
  async startAccessDigest(shareId: string, windowSeconds: number): Promise<void> {
    await startOrLeaveToSweeper<typeof shareAccessDigestWorkflow>(this.temporal, this.log, 'shareAccessDigestWorkflow', {
      taskQueue: SHARES_TASK_QUEUE, workflowId: shareAccessDigestWorkflowId(shareId), args: [shareId, windowSeconds],
    });
  }
}
