// Agents (§2.6, §4.5): machine identities with a one-time `ocv_` key, managed by humans.
import { route } from '../../route.ts';
import { agentParams, createAgentBody, updateAgentBody } from './schema.ts';
import {
  AgentSchema, AgentListSchema, AgentCreatedSchema, AgentKeyRotatedSchema,
  presentAgent, presentAgentList, presentAgentCreated, presentAgentKeyRotated,
} from '../../presenters/agents.ts';

export const agentRoutes = [
  route({
    method: 'POST', path: '/v1/agents', tag: 'Agents', auth: 'user',
    summary: 'Register an agent; the ocv_ key is returned once', body: createAgentBody,
    success: { status: 201, description: 'The agent and its one-time key', schema: AgentCreatedSchema },
    errors: { 403: 'Not an owner or admin, or resource_limit_exceeded' },
    handler: async ({ body, action, services: s }) => presentAgentCreated(await s.agents.register(action, body)),
  }),
  route({
    method: 'GET', path: '/v1/agents', tag: 'Agents', auth: 'user',
    summary: "The organization's agents",
    success: { status: 200, description: 'The agents', schema: AgentListSchema },
    handler: async ({ action, services: s }) => presentAgentList(await s.agents.list(action)),
  }),
  route({
    method: 'GET', path: '/v1/agents/me', tag: 'Agents', auth: 'principal',
    summary: "The calling agent's own profile",
    success: { status: 200, description: 'The agent', schema: AgentSchema },
    errors: { 403: 'Not an agent' },
    handler: async ({ action, services: s }) => presentAgent(await s.agents.self(action)),
  }),
  route({
    method: 'GET', path: '/v1/agents/:agent_id', tag: 'Agents', auth: 'user',
    summary: 'One agent', params: agentParams,
    success: { status: 200, description: 'The agent', schema: AgentSchema },
    errors: { 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentAgent(await s.agents.get(action, params.agent_id)),
  }),
  route({
    method: 'PATCH', path: '/v1/agents/:agent_id', tag: 'Agents', auth: 'user',
    summary: 'Update an agent (name, description, Intents API, signing switches, guardrails, key expiry, scopes, is_active)', params: agentParams, body: updateAgentBody,
    success: { status: 200, description: 'The agent', schema: AgentSchema },
    errors: { 403: 'Not an owner or admin, or resource_limit_exceeded on reactivation', 404: 'Not found' },
    handler: async ({ params, body, action, services: s }) => presentAgent(await s.agents.update(action, params.agent_id, body)),
  }),
  route({
    method: 'DELETE', path: '/v1/agents/:agent_id', tag: 'Agents', auth: 'user',
    summary: 'Deactivate an agent: its key and tokens stop working at once', params: agentParams,
    success: { status: 204, description: 'Deactivated' },
    errors: { 403: 'Not an owner or admin', 404: 'Not found' },
    handler: async ({ params, action, services: s }) => s.agents.deactivate(action, params.agent_id),
  }),
  route({
    method: 'POST', path: '/v1/agents/:agent_id/rotate-key', tag: 'Agents', auth: 'user',
    summary: 'Issue a new ocv_ key; the old key and its tokens stop working at once', params: agentParams,
    success: { status: 200, description: 'The new one-time key', schema: AgentKeyRotatedSchema },
    errors: { 403: 'Not an owner or admin', 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentAgentKeyRotated(await s.agents.rotateKey(action, params.agent_id)),
  }),
];
