// Executing through a binding (reference `POST /v1/agents/{agent_id}/execute` and
// `GET …/executions`): the agent names a binding and a request; the service adds the credential,
// checks every guardrail first, sends through the SSRF-safe client and redacts the credential
// from what comes back. The list shows the agent's executions and refused attempts.
import { route } from '../../route.ts';
import { bindingAgentParams, executeBody, executionsQuery } from './binding-schema.ts';
import { ExecuteResultSchema, ExecutionEventListSchema, presentExecuteResult, presentExecutionEventList } from '../../presenters/bindings.ts';

const TAG = 'Execution Intents';

export const executeRoutes = [
  route({
    method: 'POST', path: '/v1/agents/:agent_id/execute', tag: TAG, auth: 'principal',
    summary: "Execute an intent through one of the agent's bindings (by name or id): http_request {method, path, query, headers, body}; the agent itself, with execution_intents_enabled",
    params: bindingAgentParams, body: executeBody,
    success: { status: 200, description: 'The answer of the outside API (credential redacted), or why none came', schema: ExecuteResultSchema },
    errors: {
      403: 'Not the agent itself, execution_intents_enabled off, a guardrail (method, path) or a policy refused, binding deactivated, or plan_feature_unavailable',
      404: 'Agent or binding not found',
      409: "The binding's stored credential is missing",
      413: 'The request body is over max_body_bytes',
      422: "The binding's credential cannot be used (too short, control characters)",
      429: 'max_requests_per_minute of the binding or the agent reached: retry after Retry-After seconds',
    },
    handler: async ({ params, body, action, services: s }) => presentExecuteResult(await s.bindingExecutor.run(
      action, body.binding, body.intent_type, body.params, { agentId: params.agent_id, executionMode: body.execution_mode })),
  }),
  route({
    method: 'GET', path: '/v1/agents/:agent_id/executions', tag: TAG, auth: 'principal',
    summary: "The agent's executions and refused attempts, newest first (humans of the organization, or the agent itself); page by limit and offset",
    params: bindingAgentParams, query: executionsQuery,
    success: { status: 200, description: 'The events', schema: ExecutionEventListSchema },
    errors: { 403: "Another agent's executions", 404: 'Agent not found' },
    handler: async ({ params, query, action, services: s }) =>
      presentExecutionEventList(await s.bindings.listExecutions(action, params.agent_id, query.limit, query.offset)),
  }),
];
