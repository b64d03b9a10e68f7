// A run's workflow input (engine/run-io.ts AutomationRunArgs), built where the run starts: the
// trigger's request, the event subscriber, a schedule's tick, the sweeper. The automation's
// stored spec is parsed here, once, so the workflow needs no read before its first step.
import type { AutomationRunArgs } from './engine/run-io.ts';
import type { RunStart } from './run-attributes.ts';
import { parseWorkflowSpec } from './spec/workflow-spec.ts';

/** What the run works on: its automation's stored spec and the context its trigger stored. */
export type RunInput = { workflowSpec: unknown; context: Record<string, unknown> } | { cancelled: true };

export function runArgsFor(s: RunStart, input: RunInput): AutomationRunArgs {
  const actor = { runId: s.runId, orgId: s.orgId, agentId: s.agentId, automationId: s.automationId };
  const base = { runId: s.runId, timeoutSeconds: s.timeoutSeconds, actor };
  if ('cancelled' in input) return { ...base, steps: [], context: {}, cancelled: true };
  try {
    return { ...base, steps: parseWorkflowSpec(input.workflowSpec), context: input.context };
  } catch (e) {
    // Validated when it was stored; a spec that no longer passes fails the run.
    return { ...base, steps: [], context: input.context, refused: `the automation's workflow_spec is no longer valid: ${(e as Error).message}` };
  }
}
