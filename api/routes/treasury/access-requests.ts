// Agents' access requests to a treasury (reference requestTreasuryAccess … denyTreasuryAccess).
// Each request also shows in the approval queue (/v1/approvals).
import { route } from '../../route.ts';
import { accessRequestBody, accessRequestParams, treasuryParams } from './treasuries-schema.ts';
import { AccessRequestListSchema, AccessRequestSchema, presentAccessRequest, presentAccessRequestList } from '../../presenters/treasuries.ts';

const DECIDERS = "An agent, or a human who is neither the treasury's creator nor an owner or admin";

export const treasuryAccessRoutes = [
  route({
    method: 'POST', path: '/v1/treasury/:treasury_id/access-requests', tag: 'Treasury', auth: 'principal',
    summary: 'An agent asks to act on the treasury (agents only); a pending request is returned again rather than duplicated. Shown in the approval queue too',
    params: treasuryParams, body: accessRequestBody,
    success: { status: 201, description: 'The access request', schema: AccessRequestSchema },
    errors: { 403: 'Not an agent', 404: 'Not found' },
    handler: async ({ params, body, action, services: s }) => presentAccessRequest(await s.treasuryAccess.request(action, params.treasury_id, body.reason)),
  }),
  route({
    method: 'GET', path: '/v1/treasury/:treasury_id/access-requests', tag: 'Treasury', auth: 'principal',
    summary: "The treasury's access requests, newest first (an agent sees only its own)", params: treasuryParams,
    success: { status: 200, description: 'The requests', schema: AccessRequestListSchema },
    errors: { 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentAccessRequestList(await s.treasuryAccess.list(action, params.treasury_id)),
  }),
  route({
    method: 'POST', path: '/v1/treasury/:treasury_id/access-requests/:request_id/approve', tag: 'Treasury', auth: 'principal',
    summary: 'Approve a pending access request (its approval in the queue is approved too)', params: accessRequestParams,
    success: { status: 200, description: 'The approved request', schema: AccessRequestSchema },
    errors: { 403: DECIDERS, 404: 'Not found', 409: 'Not pending' },
    handler: async ({ params, action, services: s }) => presentAccessRequest(await s.treasuryAccess.approve(action, params.treasury_id, params.request_id)),
  }),
  route({
    method: 'POST', path: '/v1/treasury/:treasury_id/access-requests/:request_id/deny', tag: 'Treasury', auth: 'principal',
    summary: 'Deny a pending access request (its approval in the queue is rejected too)', params: accessRequestParams,
    success: { status: 200, description: 'The denied request', schema: AccessRequestSchema },
    errors: { 403: DECIDERS, 404: 'Not found', 409: 'Not pending' },
    handler: async ({ params, action, services: s }) => presentAccessRequest(await s.treasuryAccess.deny(action, params.treasury_id, params.request_id)),
  }),
];
