// Human-in-the-loop approvals (§4.3c): an agent requests one and polls it, humans list and
// decide. Who may do what is judged by the domain (agents get a 403 that says why), so these
// routes accept any principal.
import { route } from '../../route.ts';
import { approvalListQuery, approvalParams, decideApprovalBody, requestApprovalBody } from './schema.ts';
import {
  ApprovalSchema, ApprovalListSchema, ApprovalStatusSchema, presentApproval, presentApprovalList, presentApprovalStatus,
} from '../../presenters/approvals.ts';

export const approvalRoutes = [
  route({
    method: 'POST', path: '/v1/approvals/request', tag: 'Approvals', auth: 'principal',
    summary: "Request a human's approval (agents only); addressed to the agent's creator, expires after 24 hours",
    body: requestApprovalBody,
    success: { status: 202, description: 'The pending approval; `Location` is where to poll it', schema: ApprovalSchema },
    errors: { 403: 'Not an agent, or resource_limit_exceeded (too many pending approvals)' },
    handler: async ({ ctx, body, action, services: s }) => {
      const approval = presentApproval(await s.approvals.request(action, body));
      ctx.set('Location', `/v1/approvals/${approval.id}`);
      return approval;
    },
  }),
  route({
    method: 'GET', path: '/v1/approvals', tag: 'Approvals', auth: 'principal',
    summary: "The organization's approvals, newest first (humans only); filter by status, page by limit and offset",
    query: approvalListQuery,
    success: { status: 200, description: 'The approvals', schema: ApprovalListSchema },
    errors: { 403: 'Agents cannot list approvals' },
    handler: async ({ query, action, services: s }) => presentApprovalList(await s.approvals.list(action, query)),
  }),
  route({
    method: 'GET', path: '/v1/approvals/:id', tag: 'Approvals', auth: 'principal',
    summary: "One approval (the organization's humans, or the agent that requested it)", params: approvalParams,
    success: { status: 200, description: 'The approval', schema: ApprovalSchema },
    errors: { 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentApproval(await s.approvals.get(action, params.id)),
  }),
  route({
    method: 'GET', path: '/v1/approvals/:id/status', tag: 'Approvals', auth: 'principal',
    summary: "An approval's status and expiry (an agent polls only its own)", params: approvalParams,
    success: { status: 200, description: 'Status and expiry', schema: ApprovalStatusSchema },
    errors: { 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentApprovalStatus(await s.approvals.status(action, params.id)),
  }),
  route({
    method: 'POST', path: '/v1/approvals/:id/decide', tag: 'Approvals', auth: 'principal',
    summary: 'Approve or reject a pending approval (humans only: the addressee, an owner or an admin); an approval a run waits on resumes the run. Risk tier 2 needs X-Auth-Confirm (the password or a rat_ token for approval.decide), tier 3 a rat_ token for approval.decide made with TOTP, a passkey or a mobile device (POST /v1/auth/devices/{id}/challenge, then /attest)',
    params: approvalParams, body: decideApprovalBody,
    success: { status: 200, description: 'The decided approval', schema: ApprovalSchema },
    errors: {
      401: 'Risk tier 2 or 3 without the step-up it needs, a wrong password, or a used, expired or unknown rat_ token',
      403: 'Not a human, or neither the addressee nor an owner or admin; or a rat_ token for another purpose, or (tier 3) a password or a token not made with a second factor; or a token a mobile device made for another approval',
      404: 'Not found', 409: 'Not pending (decided or expired)',
      429: 'Too many wrong passwords for this account: wait Retry-After seconds',
    },
    handler: async ({ ctx, params, body, action, services: s }) =>
      presentApproval(await s.approvals.decide(action, params.id, { ...body, confirm: ctx.get('x-auth-confirm') || undefined })),
  }),
];
