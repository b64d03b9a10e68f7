// Reading the audit log of one organization, newest first, and checking its hash chain.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { chainHash, GENESIS_HASH, type ChainedFields } from './chain-hash.ts';
import { iso } from '../time.ts';
import { badRequest } from '../errors.ts';

type Row = {
  id: string; seq: string; chain_key: string; org_id: string | null; action: string; actor_type: string | null;
  actor_id: string | null; resource_type: string | null; resource_id: string | null; details: Record<string, unknown>;
  ip_address: string | null; request_id: string | null; created_at: string; prev_hash: string; integrity_hash: string;
};

export function presentAuditEvent(r: Row) {
  return {
    id: r.id,
    action: r.action,
    actor_id: r.actor_id,
    actor_type: r.actor_type,
    resource_type: r.resource_type,
    resource_id: r.resource_id,
    org_id: r.org_id,
    details: r.details,
    ip_address: r.ip_address,
    request_id: r.request_id,
    created_at: iso(r.created_at),
    prev_hash: r.prev_hash,
    integrity_hash: r.integrity_hash,
  };
}

const encodeCursor = (seq: string) => Buffer.from(`seq:${seq}`).toString('base64url');
function decodeCursor(c: string): string {
  const m = /^seq:(\d{1,19})$/.exec(Buffer.from(c, 'base64url').toString('utf8'));
  if (!m) throw badRequest('cursor is not a cursor returned by this endpoint');
  return m[1]!;
}

export async function listAuditEvents(em: EntityManager, orgId: string, q: { limit: number; action?: string; cursor?: string }) {
  const params: unknown[] = [orgId];
  let where = 'org_id = ?';
  if (q.action) { where += ' AND action = ?'; params.push(q.action); }
  if (q.cursor) { where += ' AND seq < ?'; params.push(decodeCursor(q.cursor)); }
  params.push(q.limit + 1);
  const rows = await em.execute<Row[]>(`SELECT * FROM audit_events WHERE ${where} ORDER BY seq DESC LIMIT ?`, params);
  const page = rows.slice(0, q.limit);
  return {
    events: page.map(presentAuditEvent),
    count: page.length,
    next_cursor: rows.length > q.limit ? encodeCursor(page[page.length - 1]!.seq) : null,
  };
}

const toFields = (r: Row): ChainedFields => ({
  id: r.id, chainKey: r.chain_key, orgId: r.org_id, action: r.action, actorType: r.actor_type, actorId: r.actor_id,
  resourceType: r.resource_type, resourceId: r.resource_id, details: r.details, ipAddress: r.ip_address,
  requestId: r.request_id, createdAt: new Date(r.created_at),
});

/** Recomputes the organization's chain from its first event; reports the first break. */
export async function verifyAuditChain(em: EntityManager, key: KeyObject, orgId: string, limit: number) {
  let prev = GENESIS_HASH;
  let lastSeq = '0';
  let checked = 0;
  let brokenAt: string | null = null;
  while (checked < limit && brokenAt === null) {
    const rows = await em.execute<Row[]>(
      'SELECT * FROM audit_events WHERE chain_key = ? AND seq > ? ORDER BY seq LIMIT ?', [orgId, lastSeq, Math.min(1000, limit - checked)]);
    if (rows.length === 0) break;
    for (const r of rows) {
      checked++;
      if (r.prev_hash !== prev || chainHash(key, prev, toFields(r)) !== r.integrity_hash) { brokenAt = r.id; break; }
      prev = r.integrity_hash;
      lastSeq = r.seq;
    }
  }
  let complete = false;
  if (brokenAt === null && checked < limit) {
    // The whole chain was walked: its end must be the recorded head, or events were cut off.
    const head = await em.execute<{ last_hash: string }[]>('SELECT last_hash FROM audit_chain_heads WHERE chain_key = ?', [orgId]);
    complete = (head[0]?.last_hash ?? GENESIS_HASH) === prev;
  }
  return {
    chain_valid: brokenAt === null && (complete || checked >= limit),
    events_checked: checked,
    events_verified: brokenAt === null ? checked : checked - 1,
    broken_at_event_id: brokenAt,
    head_matches: brokenAt === null && checked < limit ? complete : null,
    scheme: {
      algorithm: 'HMAC-SHA256',
      chain_structure: 'one linear chain per organization, ordered by sequence',
      hash_field: 'integrity_hash',
      link_field: 'prev_hash',
    },
  };
}
