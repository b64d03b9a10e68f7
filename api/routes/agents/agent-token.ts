// POST /v1/auth/agent-token (§4.2, §5): an agent's `ocv_` key for a short-lived JWT.
import { route } from '../../route.ts';
import { agentTokenBody } from './schema.ts';
import { AgentTokenSchema, presentAgentToken } from '../../presenters/agents.ts';

export const agentTokenRoutes = [
  route({
    method: 'POST', path: '/v1/auth/agent-token', tag: 'Authentication', auth: 'public',
    summary: "Exchange an agent's ocv_ key for a JWT", body: agentTokenBody,
    success: { status: 200, description: 'Token response with agent_id, vault_ids and scopes', schema: AgentTokenSchema },
    errors: { 401: 'Invalid, expired, rotated or deactivated key' },
    handler: async ({ body, action, services: s }) =>
      presentAgentToken(await s.agentTokens.exchange(action, { apiKey: body.api_key, agentId: body.agent_id })),
  }),
];
