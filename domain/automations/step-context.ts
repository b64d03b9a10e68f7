// A step acts as its automation's agent, exactly as the agent's own token would: the principal
// is built from the agent's current row (an agent deactivated since the trigger can do nothing),
// with its explicit scopes binding as they bind its tokens. The audit record names the run.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { Principal } from '../auth/principal.ts';
import type { RunActor } from './engine/run-io.ts';
import { explicitScopes } from '../agents/agent-scopes.ts';
import { Problem } from '../errors.ts';
import { runAgent } from './automation-repository.ts';

/**
 * No client address exists for a run: the unspecified address matches no IP condition of a
 * policy, so a grant limited to some network never applies to automation steps.
 */
export const RUN_CLIENT_IP = '0.0.0.0';

export async function stepActionContext(em: EntityManager, actor: RunActor, stepType: string): Promise<ActionContext> {
  const agent = await runAgent(em, actor.orgId, actor.agentId);
  if (!agent || agent.status !== 'active') throw new Problem(403, 'the automation\'s agent is not active');
  const scopes = explicitScopes(agent.scopes);
  const principal: Principal = {
    type: 'agent', id: actor.agentId, orgId: actor.orgId, via: 'jwt',
    ...(scopes ? { scopes } : {}), intentsApiEnabled: agent.intents_api_enabled,
  };
  return {
    principal,
    clientIp: RUN_CLIENT_IP,
    requestId: `automation-run:${actor.runId}`,
    method: 'RUN',
    path: `/v1/automations/${actor.automationId}/runs/${actor.runId}#${stepType}`,
    onAudited: () => {},
  };
}
