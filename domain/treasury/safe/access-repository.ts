// Agents' access requests to treasuries (migration 0035). Resolving is one guarded UPDATE
// (pending → approved|denied), so two deciders (the treasury route and the approval queue)
// can never both move a request.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../../db/query.ts';
import type { Database } from '../../../db/entities/index.ts';
import { isUuid } from '../../ids.ts';

export type AccessRequestRow = Selectable<Database['treasury_access_requests']>;
export type AccessDecision = 'approved' | 'denied';

/** The new pending request, or null when the agent already has one pending for this treasury. */
export async function insertAccessRequest(tx: EntityManager, r: { id: string; orgId: string; treasuryId: string; agentId: string; reason: string | null }): Promise<AccessRequestRow | null> {
  const row = await query(tx).insertInto('treasury_access_requests').values({
    id: r.id, org_id: r.orgId, treasury_id: r.treasuryId, agent_id: r.agentId, reason: r.reason,
  }).onConflict((oc) => oc.columns(['treasury_id', 'agent_id']).where('status', '=', 'pending').doNothing()).returningAll().executeTakeFirst();
  return row ?? null;
}

export async function setApprovalOf(tx: EntityManager, id: string, approvalId: string): Promise<AccessRequestRow> {
  return query(tx).updateTable('treasury_access_requests').set({ approval_id: approvalId }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function findPendingRequest(em: EntityManager, treasuryId: string, agentId: string): Promise<AccessRequestRow | null> {
  return (await query(em).selectFrom('treasury_access_requests').selectAll()
    .where('treasury_id', '=', treasuryId).where('agent_id', '=', agentId).where('status', '=', 'pending').executeTakeFirst()) ?? null;
}

export async function findAccessRequest(em: EntityManager, treasuryId: string, id: string): Promise<AccessRequestRow | null> {
  if (!isUuid(id)) return null;
  return (await query(em).selectFrom('treasury_access_requests').selectAll().where('id', '=', id).where('treasury_id', '=', treasuryId).executeTakeFirst()) ?? null;
}

export async function findAccessRequestById(em: EntityManager, id: string): Promise<AccessRequestRow | null> {
  if (!isUuid(id)) return null;
  return (await query(em).selectFrom('treasury_access_requests').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export function listAccessRequests(em: EntityManager, treasuryId: string): Promise<AccessRequestRow[]> {
  return query(em).selectFrom('treasury_access_requests').selectAll().where('treasury_id', '=', treasuryId)
    .orderBy('requested_at', 'desc').orderBy('id', 'desc').limit(500).execute();
}

/** pending → approved|denied; null when it was not pending. */
export async function resolvePending(tx: EntityManager, id: string, decision: AccessDecision, decidedBy: string | null): Promise<AccessRequestRow | null> {
  const row = await query(tx).updateTable('treasury_access_requests').set({ status: decision, resolved_by: decidedBy, resolved_at: sql`now()` })
    .where('id', '=', id).where('status', '=', 'pending').returningAll().executeTakeFirst();
  return row ?? null;
}

/** Whether the agent holds an approved request for the treasury. */
export async function hasApprovedAccess(em: EntityManager, treasuryId: string, agentId: string): Promise<boolean> {
  const r = await query(em).selectFrom('treasury_access_requests').select('id')
    .where('treasury_id', '=', treasuryId).where('agent_id', '=', agentId).where('status', '=', 'approved').executeTakeFirst();
  return r !== undefined;
}
