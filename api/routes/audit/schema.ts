// Input schemas of the audit routes. The event query takes the reference's filters
// (resource_id, actor_id, action, from, to) and pages by `cursor` or by `offset`.
import { z } from 'zod';
import { auditEventCursor } from '../../../domain/audit/audit-query.ts';
import { cursorField, limitField, timestampField } from '../../input/fields.ts';

const filterText = z.string().min(1).max(200);

export const auditEventsQuery = z.object({
  limit: limitField(1000, 100),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
  cursor: cursorField(auditEventCursor).optional(),
  action: z.string().min(1).max(100).optional(),
  resource_id: filterText.optional(),
  actor_id: filterText.optional(),
  from: timestampField.optional(),
  to: timestampField.optional(),
}).transform((q) => ({
  limit: q.limit, offset: q.offset, after: q.cursor, action: q.action, resourceId: q.resource_id, actorId: q.actor_id,
  from: q.from ? new Date(q.from) : undefined, to: q.to ? new Date(q.to) : undefined,
}));

export const auditVerifyQuery = z.object({ limit: limitField(100_000, 10_000) });
