// Audit events (reference AuditEvent, AuditEventsResponse) and the chain check (reference
// AuditVerifyResponse). Fields the reference types as optional strings are omitted, never null:
// events written before every record carried a resource (or by no one) lack them.
import { z } from 'zod';
import { shape, timestamp, uuid, jsonObject, isoAlways, omitNull } from './registry.ts';
import { CHAIN_SCHEME, type AuditEventPage, type AuditEventRow, type ChainCheck } from '../../domain/audit/audit-query.ts';

export const AuditEventSchema = shape('AuditEvent', z.object({
  id: uuid,
  action: z.string(),
  actor_id: z.string().optional(),
  actor_type: z.string().optional(),
  resource_type: z.string().optional(),
  resource_id: z.string().optional(),
  org_id: uuid.optional(),
  details: jsonObject,
  ip_address: z.string().optional(),
  request_id: z.string().optional(),
  created_at: timestamp,
  /** The chain link: the predecessor's integrity_hash, and this event's own (see /v1/audit/verify). */
  prev_hash: z.string(),
  integrity_hash: z.string(),
}));

export const AuditEventListSchema = shape('AuditEventList', z.object({
  events: z.array(AuditEventSchema),
  /** The number of events in this page. */
  count: z.number().int(),
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: z.string().nullable(),
}));

export const AuditVerifySchema = shape('AuditVerify', z.object({
  chain_valid: z.boolean(),
  events_checked: z.number().int(),
  events_verified: z.number().int(),
  broken_at_event_id: uuid.nullable(),
  /** Whether the walk ended at the recorded chain head (a cut-off tail shows here); null when it stopped early. */
  head_matches: z.boolean().nullable(),
  scheme: z.object({ algorithm: z.string(), chain_structure: z.string(), hash_field: z.string(), link_field: z.string() }),
}), 'The result of recomputing the organization\'s audit hash chain');

export function presentAuditEvent(r: AuditEventRow): z.output<typeof AuditEventSchema> {
  return {
    id: r.id,
    action: r.action,
    actor_id: omitNull(r.actor_id),
    actor_type: omitNull(r.actor_type),
    resource_type: omitNull(r.resource_type),
    resource_id: omitNull(r.resource_id),
    org_id: omitNull(r.org_id),
    details: r.details,
    ip_address: omitNull(r.ip_address),
    request_id: omitNull(r.request_id),
    created_at: isoAlways(r.created_at),
    prev_hash: r.prev_hash,
    integrity_hash: r.integrity_hash,
  };
}

export function presentAuditEventList(page: AuditEventPage): z.output<typeof AuditEventListSchema> {
  return { events: page.events.map(presentAuditEvent), count: page.events.length, next_cursor: page.nextCursor };
}

export function presentAuditVerify(c: ChainCheck): z.output<typeof AuditVerifySchema> {
  return {
    chain_valid: c.chainValid,
    events_checked: c.eventsChecked,
    events_verified: c.eventsVerified,
    broken_at_event_id: c.brokenAtEventId,
    head_matches: c.headMatches,
    scheme: { ...CHAIN_SCHEME },
  };
}
