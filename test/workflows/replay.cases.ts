// Replays the committed histories against today's workflow code: an edit that changes what a
// workflow does for the same history (a non-deterministic change) fails here before it can
// break the runs in flight in production.
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundle, type Harness } from './harness.ts';
import { SCENARIOS, readHistory, recordHistories } from './histories.ts';

export function replayTests(h: () => Harness): void {
  if (process.env.RECORD_WORKFLOW_HISTORIES === '1') {
    beforeAll(() => recordHistories(h()), 120_000);
  }

  test.each(Object.keys(SCENARIOS))('%s replays deterministically', async (name) => {
    await expect(Worker.runReplayHistory({ workflowBundle: h().bundle }, readHistory(name), name)).resolves.toBeUndefined();
  });

  test('a non-deterministic edit of a workflow fails the replay', async () => {
    const changed = await bundle(path.join(__dirname, 'changed', 'index.ts'));
    await expect(Worker.runReplayHistory({ workflowBundle: changed }, readHistory('mail-delivery-retried'), 'changed'))
      .rejects.toBeInstanceOf(DeterminismViolationError);
  });
}
