// The moment both rotation crash tests share: watch the job's row closely (batches commit 100
// versions at a time within a fraction of a second each) and SIGKILL the worker, with everything
// in its process group, once 40% are done; then check that only whole batches were committed (the
// dead worker's open batch rolled back with its connection); then let a new worker finish it.
import { IsolatedStack } from './isolated-stack.ts';
import { call } from './api.ts';
import { waitFor } from './stack.ts';

type Progress = { processed: number; status: string };

export async function killWorkerMidJob(stack: IsolatedStack, jobId: string, total: number): Promise<{ atKill: Progress; killedAt: number }> {
  const progress = async () => (await stack.pool.query<Progress>('SELECT processed, status FROM key_rotation_jobs WHERE id = $1', [jobId])).rows[0]!;
  const deadline = Date.now() + 60_000;
  let seen = await progress();
  while (seen.processed < (total * 2) / 5) {
    if (Date.now() > deadline) throw new Error(`the job did not reach ${(total * 2) / 5} processed within 60 s (at ${seen.processed}, ${seen.status})`);
    seen = await progress();
  }
  await stack.killWorker();
  const killedAt = Date.now();
  const atKill = await progress();
  expect(atKill.status).toBe('running');
  expect(atKill.processed).toBeGreaterThanOrEqual((total * 2) / 5);
  expect(atKill.processed).toBeLessThanOrEqual((total * 4) / 5);
  expect(atKill.processed % 100).toBe(0); // whole batches only
  return { atKill, killedAt };
}

/** After the kill: a new worker, then the job's status through the isolated api until completed (a failed job fails the test). */
export async function completedByNewWorker(stack: IsolatedStack, statusPath: string, token: string): Promise<any> {
  const worker = stack.startWorker();
  return waitFor('the rotation completed by the new worker', 240_000, async () => {
    const r = await call('GET', statusPath, { base: stack.apiUrl, token });
    expect(r.status).toBe(200);
    if (r.body.status === 'failed') throw new Error(`the job failed: ${r.body.error}`);
    return r.body.status === 'completed' ? r.body : undefined;
  }, () => worker.exitCode !== null);
}
