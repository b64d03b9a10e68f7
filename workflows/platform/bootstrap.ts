// A platform bootstrap (issue 35 §3): the template's resources for a connected user, one step at a
// time. Each step is an activity that makes only what is missing under the plan's ids
// (domain/platform/bootstrap-steps.ts), so a worker killed mid-way resumes here and never makes a
// second vault or agent. No key, token or secret passes through this workflow's history: the plan
// lives in Postgres, and the agent key and claim token are minted by the API once this ends.
import { proxyActivities } from '@temporalio/workflow';
import type { PlatformActivities } from '../../activities/platform.ts';

const STEPS = ['vault', 'agents', 'policies', 'signing_keys', 'complete'] as const;

export async function platformBootstrapWorkflow(connectionId: string): Promise<void> {
  const { bootstrapStep } = proxyActivities<PlatformActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  });
  for (const step of STEPS) await bootstrapStep(connectionId, step);
}
