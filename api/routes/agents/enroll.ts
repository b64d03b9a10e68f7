// Agent self-enrollment (§4.5): an agent asks to join; a human of an organization approves it
// there, and only then is a key issued (to that human, once).
import { route } from '../../route.ts';
import { enrollBody, enrollmentParams } from './schema.ts';
import {
  AgentCreatedSchema, EnrollmentRequestedSchema, EnrollmentSchema,
  presentAgentCreated, presentEnrollmentRequested, presentEnrollment,
} from '../../presenters/agents.ts';

export const enrollRoutes = [
  route({
    method: 'POST', path: '/v1/agents/enroll', tag: 'Agents', auth: 'public',
    summary: 'Agent self-enrollment: creates a pending request a human must approve', body: enrollBody,
    success: { status: 201, description: 'Pending: agent_id is the nil UUID until a human approves', schema: EnrollmentRequestedSchema },
    errors: { 429: 'Too many enrollment requests' },
    handler: async ({ body, action, services: s }) => presentEnrollmentRequested(await s.enrollments.request(action, body)),
  }),
  route({
    method: 'GET', path: '/v1/agent-enrollments/:token', tag: 'Agents', auth: 'public',
    summary: 'Preview an enrollment request', params: enrollmentParams, secretParams: ['token'],
    success: { status: 200, description: 'The request', schema: EnrollmentSchema },
    errors: { 404: 'Unknown', 409: 'Already decided', 410: 'Expired' },
    handler: async ({ params, action, services: s }) => presentEnrollment(await s.enrollments.preview(action, params.token)),
  }),
  route({
    method: 'POST', path: '/v1/agent-enrollments/:token/approve', tag: 'Agents', auth: 'user',
    summary: "Approve an enrollment into the caller's organization; returns the agent's key once", params: enrollmentParams, secretParams: ['token'],
    success: { status: 201, description: 'The agent and its one-time key', schema: AgentCreatedSchema },
    errors: { 403: 'Not an owner/admin, not the named human, or resource_limit_exceeded', 404: 'Unknown', 409: 'Already decided', 410: 'Expired' },
    handler: async ({ params, action, services: s }) => presentAgentCreated(await s.enrollments.approve(action, params.token)),
  }),
  route({
    method: 'POST', path: '/v1/agent-enrollments/:token/deny', tag: 'Agents', auth: 'user',
    summary: 'Deny an enrollment request', params: enrollmentParams, secretParams: ['token'],
    success: { status: 204, description: 'Denied' },
    errors: { 403: 'Not an owner/admin', 404: 'Unknown', 409: 'Already decided', 410: 'Expired' },
    handler: async ({ params, action, services: s }) => s.enrollments.deny(action, params.token),
  }),
];
