// Reading the audit log (§4.11) of one organization, newest first, and checking its hash chain.
// Owners and admins only. Returns rows; api/presenters/audit.ts shapes them.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from './action-context.ts';
import type { AuditWriter } from './audit-writer.ts';
import { chainHash, GENESIS_HASH, type ChainedFields } from './chain-hash.ts';
import { callerOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { z } from 'zod';
import { cursorCodec, isBigintText } from '../paging/cursor.ts';
import { auditEventsOf, chainEventsAfter, chainHead, type AuditEventRow } from './audit-log-repository.ts';

export type { AuditEventRow };

/** Pages of the audit log, newest first: the key is the last sequence number served. */
export const auditEventCursor = cursorCodec('audit-events', z.string().refine(isBigintText));

/** Filters of the reference query (resource_id, actor_id, action, from, to) and paging by cursor (`after`, decoded) or offset. */
export type AuditEventQuery = {
  limit: number; offset: number; after?: string; action?: string; resourceId?: string; actorId?: string; from?: Date; to?: Date;
};

export type AuditEventPage = { events: AuditEventRow[]; nextCursor: string | null };

export type ChainCheck = {
  chainValid: boolean;
  eventsChecked: number;
  eventsVerified: number;
  brokenAtEventId: string | null;
  /** Whether the walk ended at the recorded head; null when it stopped early (a break or the limit). */
  headMatches: boolean | null;
};

/** How the chain is built (see chain-hash.ts), for callers who verify it themselves. */
export const CHAIN_SCHEME = {
  algorithm: 'HMAC-SHA256',
  chain_structure: 'one linear chain per organization, ordered by sequence',
  hash_field: 'integrity_hash',
  link_field: 'prev_hash',
} as const;

export async function listAuditEvents(em: EntityManager, orgId: string, q: AuditEventQuery): Promise<AuditEventPage> {
  const rows = await auditEventsOf(em, orgId, {
    action: q.action, resourceId: q.resourceId, actorId: q.actorId, from: q.from, to: q.to, beforeSeq: q.after,
  }, q.limit + 1, q.offset);
  const events = rows.slice(0, q.limit);
  return { events, nextCursor: rows.length > q.limit ? auditEventCursor.encode(String(events[events.length - 1]!.seq)) : null };
}

const toFields = (r: AuditEventRow): ChainedFields => ({
  id: r.id, chainKey: r.chain_key, orgId: r.org_id, action: r.action, actorType: r.actor_type, actorId: r.actor_id,
  resourceType: r.resource_type, resourceId: r.resource_id, details: r.details, ipAddress: r.ip_address,
  requestId: r.request_id, createdAt: r.created_at,
});

/** Recomputes the organization's chain from its first event; reports the first break. */
export async function verifyAuditChain(em: EntityManager, key: KeyObject, orgId: string, limit: number): Promise<ChainCheck> {
  let prev = GENESIS_HASH;
  let lastSeq = 0;
  let checked = 0;
  let brokenAt: string | null = null;
  while (checked < limit && brokenAt === null) {
    const rows = await chainEventsAfter(em, orgId, lastSeq, Math.min(1000, limit - checked));
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
    complete = ((await chainHead(em, orgId)) ?? GENESIS_HASH) === prev;
  }
  return {
    chainValid: brokenAt === null && (complete || checked >= limit),
    eventsChecked: checked,
    eventsVerified: brokenAt === null ? checked : checked - 1,
    brokenAtEventId: brokenAt,
    headMatches: brokenAt === null && checked < limit ? complete : null,
  };
}

export type AuditLogDeps = { db: () => EntityManager; writer: Pick<AuditWriter, 'drain'>; chainKey: KeyObject };

/** The audit log as its readers see it: owners and admins of the organization. */
export class AuditLog {
  private readonly d: AuditLogDeps;

  constructor(deps: AuditLogDeps) {
    this.d = deps;
  }

  async events(ctx: ActionContext, q: AuditEventQuery): Promise<AuditEventPage> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    await this.d.writer.drain(); // include this caller's own recent requests
    return listAuditEvents(em, p.orgId, q);
  }

  async verify(ctx: ActionContext, limit: number): Promise<ChainCheck> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    await this.d.writer.drain();
    return verifyAuditChain(em, this.d.chainKey, p.orgId, limit);
  }
}
