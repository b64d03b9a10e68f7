// How a run is found in the Temporal UI: search attributes (organization, automation, agent,
// trigger type, status) and a memo with the automation's name. Used by the api's client and by
// the schedule tick workflow (workflow-safe: types and the attribute keys only).
import type { SearchAttributePair } from '@temporalio/common';
import type { TriggerType } from './automation-types.ts';
import { VaultAgentId, VaultAutomationId, VaultOrgId, VaultRunStatus, VaultTriggerType } from '../temporal/search-attribute-keys.ts';

export const AUTOMATIONS_TASK_QUEUE = 'vault-automations';
export const runWorkflowId = (runId: string) => `automation-run:${runId}`;

/** What starting a run's workflow needs to know besides its id. */
export type RunStart = {
  runId: string; orgId: string; automationId: string; agentId: string; triggerType: TriggerType; automationName: string;
  timeoutSeconds: number;
};

export function runSearchAttributes(s: RunStart): SearchAttributePair[] {
  return [
    { key: VaultOrgId, value: s.orgId },
    { key: VaultAutomationId, value: s.automationId },
    { key: VaultAgentId, value: s.agentId },
    { key: VaultTriggerType, value: s.triggerType },
    { key: VaultRunStatus, value: 'running' },
  ];
}

export const runMemo = (s: RunStart) => ({ automation_name: s.automationName, trigger_type: s.triggerType });
