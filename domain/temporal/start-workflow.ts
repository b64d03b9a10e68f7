// The ways an area client starts a workflow. Postgres already holds the intent (an outbox row,
// a user in status `deleting`, a delivery row) before either runs; the workflow ID comes from the
// domain id, so a repeated start never runs the work twice.
import { WorkflowExecutionAlreadyStartedError, type WorkflowIdReusePolicy, type Client, type Workflow, type WorkflowStartOptions } from '@temporalio/client';
import type { Logger } from '../log.ts';

export type WorkflowStart<W extends Workflow> = {
  taskQueue: string; workflowId: string; args: Parameters<W>;
  /** For operators: what the Temporal UI filters on, and human names shown with the workflow. */
  typedSearchAttributes?: WorkflowStartOptions<W>['typedSearchAttributes'];
  memo?: Record<string, unknown>;
  /**
   * Temporal's eager workflow start: when the client shares its connection with a worker of the
   * task queue (one process running both), the first workflow task comes back with the start
   * answer instead of through the task queue. Ignored by the server otherwise.
   */
  requestEagerStart?: boolean;
};

/** Best-effort start: a failure is logged and the worker's sweeper starts the workflow later. */
export async function startOrLeaveToSweeper<W extends Workflow>(client: Client, log: Logger, workflowType: string, start: WorkflowStart<W>): Promise<void> {
  try {
    await startWithId(client, workflowType, start, {});
  } catch (e) {
    log.warn('could not start workflow now; it will be retried', { workflowId: start.workflowId, error: String(e) });
  }
}

/**
 * Starts the workflow unless one with this ID is running or has ever run (a closed run is not
 * repeated: at-least-once work must not become twice-done). Throws when Temporal cannot be
 * reached, so the caller keeps its intent and tries again. True when this call started it.
 */
export async function startOnce<W extends Workflow>(client: Client, workflowType: string, start: WorkflowStart<W>): Promise<boolean> {
  try {
    await startWithId(client, workflowType, start, { workflowIdReusePolicy: 'REJECT_DUPLICATE', workflowIdConflictPolicy: 'FAIL' });
    return true;
  } catch (e) {
    if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
    return false;
  }
}

/** A running workflow with this ID is reused, never started twice. */
async function startWithId<W extends Workflow>(client: Client, workflowType: string, start: WorkflowStart<W>,
  extra: { workflowIdReusePolicy?: WorkflowIdReusePolicy; workflowIdConflictPolicy?: 'FAIL' }): Promise<void> {
  await client.workflow.start<W>(workflowType, {
    taskQueue: start.taskQueue,
    workflowId: start.workflowId,
    args: start.args,
    ...(start.typedSearchAttributes ? { typedSearchAttributes: start.typedSearchAttributes } : {}),
    ...(start.memo ? { memo: start.memo } : {}),
    ...(start.requestEagerStart ? { requestEagerStart: true } : {}),
    workflowIdConflictPolicy: 'USE_EXISTING',
    ...extra,
    // TypeScript cannot relate WorkflowStartOptions' conditional `args` to a generic W; the
    // callers' `args: Parameters<W>` is what keeps this typed.
  } as unknown as WorkflowStartOptions<W>);
}
