// Execution bindings (issue 14 §2; reference `/v1/agents/{agent_id}/bindings*`): how an agent
// reaches an outside HTTP API with a credential it never sees. Owners and admins manage them;
// the organization's humans and the agent itself may list and read them (never the credential).
import { route } from '../../route.ts';
import {
  bindingAgentParams, bindingParams, createBindingBody, rotateCredentialBody, testBindingBody, updateBindingBody,
} from './binding-schema.ts';
import {
  BindingSchema, BindingListSchema, BindingTestSchema, presentBinding, presentBindingList, presentBindingTest,
} from '../../presenters/bindings.ts';

const TAG = 'Execution Intents';

export const bindingRoutes = [
  route({
    method: 'POST', path: '/v1/agents/:agent_id/bindings', tag: TAG, auth: 'user',
    summary: 'Create a binding (http): base URL, allowed methods and paths, static headers, how the credential is added, guardrails; the credential inline or as a vault reference',
    params: bindingAgentParams, body: createBindingBody,
    success: { status: 201, description: 'The binding (never its credential)', schema: BindingSchema },
    errors: {
      400: 'Invalid config (e.g. a base URL to a private address), guardrails or credential, or a binding type not supported yet',
      403: 'Not an owner or admin, or plan_feature_unavailable (Execution Intents need Pro or higher)',
      404: 'Agent not found', 409: 'The agent already has a binding with this name',
    },
    handler: async ({ params, body, action, services: s }) => presentBinding(await s.bindings.create(action, params.agent_id, body)),
  }),
  route({
    method: 'GET', path: '/v1/agents/:agent_id/bindings', tag: TAG, auth: 'principal',
    summary: "The agent's bindings (humans of the organization, or the agent itself)",
    params: bindingAgentParams,
    success: { status: 200, description: 'The bindings', schema: BindingListSchema },
    errors: { 403: "Another agent's bindings", 404: 'Agent not found' },
    handler: async ({ params, action, services: s }) => presentBindingList(await s.bindings.list(action, params.agent_id)),
  }),
  route({
    method: 'GET', path: '/v1/agents/:agent_id/bindings/:binding_id', tag: TAG, auth: 'principal',
    summary: 'One binding (humans of the organization, or the agent itself)',
    params: bindingParams,
    success: { status: 200, description: 'The binding', schema: BindingSchema },
    errors: { 403: "Another agent's binding", 404: 'Agent or binding not found' },
    handler: async ({ params, action, services: s }) => presentBinding(await s.bindings.get(action, params.agent_id, params.binding_id)),
  }),
  route({
    method: 'PATCH', path: '/v1/agents/:agent_id/bindings/:binding_id', tag: TAG, auth: 'user',
    summary: 'Update a binding: config and guardrails (each replaced whole), is_active, or its credential',
    params: bindingParams, body: updateBindingBody,
    success: { status: 200, description: 'The binding', schema: BindingSchema },
    errors: { 400: 'Invalid config, guardrails or credential', 403: 'Not an owner or admin', 404: 'Agent or binding not found' },
    handler: async ({ params, body, action, services: s }) => presentBinding(await s.bindings.update(action, params.agent_id, params.binding_id, body)),
  }),
  route({
    method: 'DELETE', path: '/v1/agents/:agent_id/bindings/:binding_id', tag: TAG, auth: 'user',
    summary: 'Delete a binding; an inline credential is erased',
    params: bindingParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: 'Not an owner or admin', 404: 'Agent or binding not found' },
    handler: async ({ params, action, services: s }) => s.bindings.delete(action, params.agent_id, params.binding_id),
  }),
  route({
    method: 'POST', path: '/v1/agents/:agent_id/bindings/:binding_id/test', tag: TAG, auth: 'principal',
    summary: 'Connectivity test: one GET of the base URL with the credential added; only success, latency and a redacted error come back',
    params: bindingParams, body: testBindingBody,
    success: { status: 200, description: 'The outcome', schema: BindingTestSchema },
    errors: { 403: 'Not an owner or admin nor the agent itself, or plan_feature_unavailable', 404: 'Agent or binding not found' },
    handler: async ({ params, body, action, services: s }) =>
      presentBindingTest(await s.bindings.test(action, params.agent_id, params.binding_id, body?.timeout_ms)),
  }),
  route({
    method: 'POST', path: '/v1/agents/:agent_id/bindings/:binding_id/rotate-credential', tag: TAG, auth: 'user',
    summary: 'Replace the stored (inline) credential, config and guardrails untouched; the value is never returned (owners and admins)',
    params: bindingParams, body: rotateCredentialBody,
    success: { status: 200, description: 'The binding', schema: BindingSchema },
    errors: {
      400: 'Invalid credential', 403: 'Not an owner or admin', 404: 'Agent or binding not found',
      409: 'The credential is a vault reference: write a new version of that secret instead',
    },
    handler: async ({ params, body, action, services: s }) =>
      presentBinding(await s.bindings.rotateCredential(action, params.agent_id, params.binding_id, body.credential)),
  }),
];
