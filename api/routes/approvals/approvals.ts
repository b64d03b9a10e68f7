// Human-in-the-loop approvals (§4.3c): an agent requests one and polls it, humans list and
// decide. Who may do what is judged by the domain (agents get a 403 that says why), so these
// routes accept any principal. Besides the reference's routes, the spellings the published SDK
// sends (reference facts §11.1, §27.5): POST …/{id}/approve and …/{id}/deny, and the step-up in
// X-MFA-Token (an alias of X-Auth-Confirm). The mailed one-click link (GET …/quick-decide) is
// public: its token is the credential (domain/approvals/quick-decide.ts).
import { route, type AppContext } from '../../route.ts';
import { approvalListQuery, approvalParams, decideApprovalBody, quickDecideQuery, requestApprovalBody, sdkDecisionBody } from './schema.ts';
import {
  ApprovalSchema, ApprovalListSchema, ApprovalQuickDecisionSchema, ApprovalStatusSchema, presentApproval, presentApprovalList, presentApprovalStatus,
  presentQuickDecision,
} from '../../presenters/approvals.ts';

const STEP_UP = 'Risk tier 2 needs X-Auth-Confirm (the password or a rat_ token for approval.decide; X-MFA-Token is accepted as the same header), tier 3 a rat_ token for approval.decide made with TOTP, a passkey or a mobile device (POST /v1/auth/devices/{id}/challenge, then /attest)';
const DECIDE_ERRORS = {
  401: 'Risk tier 2 or 3 without the step-up it needs, a wrong password, or a used, expired or unknown rat_ token',
  403: 'Not a human, or neither the addressee nor an owner or admin; or a rat_ token for another purpose, or (tier 3) a password or a token not made with a second factor; or a token a mobile device made for another approval',
  404: 'Not found', 409: 'Not pending (decided or expired)',
  429: 'Too many wrong passwords for this account: wait Retry-After seconds',
};

/** The step-up: X-Auth-Confirm, or the SDK's X-MFA-Token. */
const confirmOf = (ctx: AppContext) => ctx.get('x-auth-confirm') || ctx.get('x-mfa-token') || undefined;

export const approvalRoutes = [
  route({
    method: 'POST', path: '/v1/approvals/request', tag: 'Approvals', auth: 'principal',
    summary: "Request a human's approval (agents only); addressed to the agent's creator and mailed to the organization's owners and admins with quick-decide links; expires after 24 hours unless expires_in_seconds (2 s to 7 days) says otherwise",
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
  // Before GET /v1/approvals/:id, which would take `quick-decide` for an id.
  route({
    method: 'GET', path: '/v1/approvals/quick-decide', tag: 'Approvals', auth: 'public',
    summary: "A mailed one-click link (public; the token is the credential, single use, 7 days): decides the approval as the owner or admin it was mailed to and redirects (302) to the dashboard's page of it. Risk tier 2 and 3 approvals need a step-up a link cannot carry: refused (403 step_up_required, naming dashboard_url), the link stays unused",
    query: quickDecideQuery,
    success: { status: 302, description: 'Decided; `Location` is the dashboard page of the approval ({PUBLIC_URL}/approvals/{id}?decided=true)', schema: ApprovalQuickDecisionSchema },
    errors: {
      403: 'step_up_required: risk tier 2 or 3 (decide it in the dashboard: dashboard_url); or the human is no longer an owner, admin or the addressee',
      404: 'Unknown link', 409: 'The approval is no longer pending (decided or expired)', 410: 'The link was already used, or has expired',
    },
    handler: async ({ ctx, query, action, services: s }) => {
      const decided = await s.quickDecide.decide(action, query.token, query.decision);
      ctx.set('Location', decided.location);
      return presentQuickDecision(decided);
    },
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
    summary: `Approve or reject a pending approval (humans only: the addressee, an owner or an admin); what waits on it resumes (an automation run, a held transaction). ${STEP_UP}`,
    params: approvalParams, body: decideApprovalBody,
    success: { status: 200, description: 'The decided approval', schema: ApprovalSchema },
    errors: DECIDE_ERRORS,
    handler: async ({ ctx, params, body, action, services: s }) =>
      presentApproval(await s.approvals.decide(action, params.id, { ...body, confirm: confirmOf(ctx) })),
  }),
  route({
    method: 'POST', path: '/v1/approvals/:id/approve', tag: 'Approvals', auth: 'principal',
    summary: `The SDK's spelling of POST …/decide with decision approve (optional reason). ${STEP_UP}`,
    params: approvalParams, body: sdkDecisionBody,
    success: { status: 200, description: 'The approved approval', schema: ApprovalSchema },
    errors: DECIDE_ERRORS,
    handler: async ({ ctx, params, body, action, services: s }) =>
      presentApproval(await s.approvals.decide(action, params.id, { decision: 'approved', reason: body.reason, confirm: confirmOf(ctx) })),
  }),
  route({
    method: 'POST', path: '/v1/approvals/:id/deny', tag: 'Approvals', auth: 'principal',
    summary: `The SDK's spelling of POST …/decide with decision reject (optional reason). ${STEP_UP}`,
    params: approvalParams, body: sdkDecisionBody,
    success: { status: 200, description: 'The rejected approval', schema: ApprovalSchema },
    errors: DECIDE_ERRORS,
    handler: async ({ ctx, params, body, action, services: s }) =>
      presentApproval(await s.approvals.decide(action, params.id, { decision: 'rejected', reason: body.reason, confirm: confirmOf(ctx) })),
  }),
];
