// The audit log (§4.11): newest first, scoped to the caller's organization, and a chain check.
import { route } from '../../route.ts';
import { auditEventsQuery, auditVerifyQuery } from './schema.ts';
import { AuditEventListSchema, AuditVerifySchema, presentAuditEventList, presentAuditVerify } from '../../presenters/audit.ts';

export const auditRoutes = [
  route({
    method: 'GET', path: '/v1/audit/events', tag: 'Audit', auth: 'user', billable: 'query_audit',
    summary: "The organization's audit events, newest first",
    query: auditEventsQuery,
    success: { status: 200, description: 'A page of events', schema: AuditEventListSchema },
    errors: { 403: 'Not an owner or admin' },
    handler: async ({ query, action, services: s }) => presentAuditEventList(await s.auditLog.events(action, query)),
  }),
  route({
    method: 'GET', path: '/v1/audit/verify', tag: 'Audit', auth: 'user',
    summary: "Recompute the organization's audit hash chain and report whether it is intact",
    query: auditVerifyQuery,
    success: { status: 200, description: 'The chain check', schema: AuditVerifySchema },
    errors: { 403: 'Not an owner or admin' },
    handler: async ({ query, action, services: s }) => presentAuditVerify(await s.auditLog.verify(action, query.limit)),
  }),
];
