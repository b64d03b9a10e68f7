// Activities of the platform area: a bootstrap's steps (domain/platform/bootstrap-steps.ts).
import { BootstrapSteps, type BootstrapStep } from '../domain/platform/bootstrap-steps.ts';
import { PLATFORM_TASK_QUEUE, PlatformClient } from '../domain/platform/client.ts';
import { bootstrapsLeftRunning } from '../domain/platform/bootstrap-repository.ts';
import type { TemporalArea, WorkerDeps } from './temporal-area.ts';

export function createPlatformActivities(deps: Pick<WorkerDeps, 'em' | 'kms'>) {
  const steps = new BootstrapSteps({ em: deps.em, kms: deps.kms });
  return {
    async bootstrapStep(connectionId: string, step: BootstrapStep): Promise<void> {
      await steps.run(connectionId, step);
    },
  };
}
export type PlatformActivities = ReturnType<typeof createPlatformActivities>;

export const platformArea: TemporalArea = {
  taskQueue: PLATFORM_TASK_QUEUE,
  activities: (d) => createPlatformActivities(d),
  async redrive(d, olderThan) {
    const client = new PlatformClient(d.temporal, d.log);
    for (const id of await bootstrapsLeftRunning(d.em(), olderThan)) await client.startBootstrap(id);
  },
};
