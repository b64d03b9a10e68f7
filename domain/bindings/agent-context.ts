// The agent's own ActionContext for a human's request that must act as the agent: testing a
// binding reads its vault_ref credential exactly as an execution would, with the agent's policies
// and explicit scopes (as domain/automations/step-context.ts does for automation steps), never
// with the human's wider rights. The unspecified client address matches no IP condition of a
// policy, so a grant limited to some network does not apply to such a read.
import type { ActionContext } from '../audit/action-context.ts';
import type { Principal } from '../auth/principal.ts';
import type { AgentRow } from '../agents/agent-repository.ts';
import { explicitScopes } from '../agents/agent-scopes.ts';

export const NO_CLIENT_IP = '0.0.0.0';

export function actingAsAgent(ctx: ActionContext, agent: AgentRow): ActionContext {
  const scopes = explicitScopes(agent.scopes);
  const principal: Principal = {
    type: 'agent', id: agent.id, orgId: agent.org_id, via: 'jwt',
    ...(scopes ? { scopes } : {}), intentsApiEnabled: agent.intents_api_enabled,
  };
  return { ...ctx, principal, clientIp: NO_CLIENT_IP };
}
