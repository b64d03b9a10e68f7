// Where a stored automation's steps would send things, checked when it is created or changed, so
// a destination that can never be reached is a 400 then rather than a failed run later. Today:
// an ai_generate step's written-out base_url (domain/ai/step-target.ts). Each run checks again.
import type { AiConfig } from '../../config.ts';
import type { Exemptions } from '../../net/outbound/index.ts';
import type { Step } from './step-types.ts';
import { invalidField } from '../../errors.ts';
import { stepBaseUrlProblem } from '../../ai/step-target.ts';

export type DestinationPolicy = { ai: AiConfig; exemptions: Exemptions };

/** Throws a 400 naming `workflow_spec.steps[i]….base_url` for the first destination that is refused. */
export function checkStepDestinations(policy: DestinationPolicy, steps: readonly Step[], at = 'workflow_spec.steps'): void {
  steps.forEach((step, i) => {
    const here = `${at}[${i}]`;
    if (step.type === 'ai_generate') {
      const problem = stepBaseUrlProblem(policy.ai, policy.exemptions, step.params);
      if (problem) throw invalidField(`${here}.base_url`, `${problem} (a step's base_url must be https, or http to an address in OUTBOUND_ALLOW_CIDRS)`);
    }
    if (step.if_true) checkStepDestinations(policy, step.if_true, `${here}.if_true`);
    if (step.if_false) checkStepDestinations(policy, step.if_false, `${here}.if_false`);
  });
}
