// The one way an area client starts a workflow. Postgres already holds the intent (an outbox row,
// a user in status `deleting`) before this runs, so starting is best-effort: a failure is logged
// and the worker's sweeper starts the workflow once Temporal answers. The workflow ID comes from
// the domain id and an existing run is reused, so a repeated start never runs the work twice.
import type { Client, Workflow, WorkflowStartOptions } from '@temporalio/client';
import type { Logger } from '../log.ts';

export type WorkflowStart<W extends Workflow> = { taskQueue: string; workflowId: string; args: Parameters<W> };

export async function startOrLeaveToSweeper<W extends Workflow>(client: Client, log: Logger, workflowType: string, start: WorkflowStart<W>): Promise<void> {
  try {
    await client.workflow.start<W>(workflowType, {
      taskQueue: start.taskQueue,
      workflowId: start.workflowId,
      args: start.args,
      workflowIdConflictPolicy: 'USE_EXISTING',
      // TypeScript cannot relate WorkflowStartOptions' conditional `args` to a generic W; the
      // callers' `args: Parameters<W>` is what keeps this typed.
    } as unknown as WorkflowStartOptions<W>);
  } catch (e) {
    log.warn('could not start workflow now; it will be retried', { workflowId: start.workflowId, error: String(e) });
  }
}
