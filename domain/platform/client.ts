// The platform area's Temporal client: the only place that starts bootstrap workflows and spells
// their IDs and task queue. One bootstrap per connection: a repeated start (the app calling again
// after a timeout, the sweeper) joins the running one.
import type { Client } from '@temporalio/client';
import type { platformBootstrapWorkflow } from '../../workflows/platform/bootstrap.ts';
import type { Logger } from '../log.ts';
import { startOrLeaveToSweeper } from '../temporal/start-workflow.ts';

export const PLATFORM_TASK_QUEUE = 'vault-platform';

export const bootstrapWorkflowId = (connectionId: string) => `platform-bootstrap:${connectionId}`;

export class PlatformClient {
  private readonly temporal: Client;
  private readonly log: Logger;

  constructor(temporal: Client, log: Logger) {
    this.temporal = temporal;
    this.log = log;
  }

  /** Starts the bootstrap unless it runs already; never throws (the sweeper starts bootstraps left running). */
  async startBootstrap(connectionId: string): Promise<void> {
    await startOrLeaveToSweeper<typeof platformBootstrapWorkflow>(this.temporal, this.log, 'platformBootstrapWorkflow', {
      taskQueue: PLATFORM_TASK_QUEUE, workflowId: bootstrapWorkflowId(connectionId), args: [connectionId],
    });
  }

  /** Waits up to `ms` for the bootstrap to finish: true when it did. */
  async awaitBootstrap(connectionId: string, ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
    try {
      return await Promise.race([this.temporal.workflow.getHandle(bootstrapWorkflowId(connectionId)).result().then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
