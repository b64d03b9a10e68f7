// The audit log (§4.11): newest first, scoped to the caller's organization, and a chain check.
import { z } from 'zod';
import { route, json } from '../route.ts';
import { requireManager } from '../../domain/org/roles.ts';
import { listAuditEvents, verifyAuditChain } from '../../domain/audit/audit-query.ts';

export const auditRoutes = [
  route({
    method: 'GET', path: '/v1/audit/events', tag: 'Audit', auth: 'user',
    summary: "The organization's audit events, newest first",
    query: z.object({
      limit: z.coerce.number().int().min(1).max(1000).default(100),
      action: z.string().min(1).max(100).optional(),
      cursor: z.string().min(1).max(100).optional(),
    }),
    success: { status: 200, description: '{events, count, next_cursor}' }, errors: { 403: 'Not an owner or admin' },
    async handler({ ctx, query, principal, services: s }) {
      const em = s.em();
      await requireManager(em, principal);
      await s.audit.drain(); // include this caller's own recent requests
      json(ctx, 200, await listAuditEvents(em, principal.orgId, query));
    },
  }),
  route({
    method: 'GET', path: '/v1/audit/verify', tag: 'Audit', auth: 'user',
    summary: "Recompute the organization's audit hash chain and report whether it is intact",
    query: z.object({ limit: z.coerce.number().int().min(1).max(100_000).default(10_000) }),
    success: { status: 200, description: '{chain_valid, events_checked, broken_at_event_id}' }, errors: { 403: 'Not an owner or admin' },
    async handler({ ctx, query, principal, services: s }) {
      const em = s.em();
      await requireManager(em, principal);
      await s.audit.drain();
      json(ctx, 200, await verifyAuditChain(em, s.auditKey, principal.orgId, query.limit));
    },
  }),
];
