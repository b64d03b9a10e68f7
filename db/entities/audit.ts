// The hash-chained audit log: one chain per organization, 'system' for requests without one
// (migration 0001; domain/audit).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const AuditEvent = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
  properties: {
    id: p.uuid().primary(),
    /** bigserial: the database numbers events. */
    seq: p.bigint('number').autoincrement().unique(),
    chain_key: p.text(),
    org_id: p.uuid().nullable(),
    action: p.text(),
    actor_type: p.text().nullable(),
    actor_id: p.text().nullable(),
    resource_type: p.text().nullable(),
    resource_id: p.text().nullable(),
    details: p.json<Record<string, unknown>>().default('{}'),
    ip_address: p.text().nullable(),
    request_id: p.text().nullable(),
    /** No default: the writer sets it, as it is part of the hashed record. */
    created_at: p.datetime(),
    prev_hash: p.text(),
    integrity_hash: p.text(),
  },
  indexes: [
    { name: 'audit_events_chain_idx', properties: ['chain_key', 'seq'] },
    { name: 'audit_events_org_action_idx', properties: ['org_id', 'action', 'seq'] },
  ],
});
export type AuditEventRow = InferEntity<typeof AuditEvent>;

export const AuditChainHead = defineEntity({
  name: 'AuditChainHead',
  tableName: 'audit_chain_heads',
  properties: {
    chain_key: p.text().primary(),
    last_hash: p.text(),
    last_seq: p.bigint('number').defaultRaw('0'),
  },
});
export type AuditChainHeadRow = InferEntity<typeof AuditChainHead>;
