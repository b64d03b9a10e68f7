// Proposals and their signatures (migration 0035). Every status change is a guarded UPDATE
// (`… WHERE status IN (…)`), so a timer, a human and the execution workflow never both move one.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../../db/query.ts';
import type { Database } from '../../../db/entities/index.ts';
import { isUuid } from '../../ids.ts';

export type ProposalRow = Selectable<Database['treasury_proposals']>;
export type ProposalStatus = ProposalRow['status'];
export type SignatureRow = Selectable<Database['treasury_proposal_signatures']>;
export const PROPOSAL_STATUSES = ['pending', 'approved', 'executing', 'executed', 'rejected', 'expired', 'cancelled', 'failed'] as const;

export type NewProposal = Omit<ProposalRow, 'status' | 'transaction_id' | 'executed_tx_hash' | 'executed_at' | 'error_message' | 'created_at' | 'updated_at'>;

export function insertProposal(tx: EntityManager, p: NewProposal): Promise<ProposalRow> {
  return query(tx).insertInto('treasury_proposals').values(p).returningAll().executeTakeFirstOrThrow();
}

export async function findProposal(em: EntityManager, treasuryId: string, id: string, forUpdate = false): Promise<ProposalRow | null> {
  if (!isUuid(id)) return null;
  const q = query(em).selectFrom('treasury_proposals').selectAll().where('id', '=', id).where('treasury_id', '=', treasuryId);
  return (await (forUpdate ? q.forUpdate() : q).executeTakeFirst()) ?? null;
}

export async function findProposalById(em: EntityManager, id: string, forUpdate = false): Promise<ProposalRow | null> {
  if (!isUuid(id)) return null;
  const q = query(em).selectFrom('treasury_proposals').selectAll().where('id', '=', id);
  return (await (forUpdate ? q.forUpdate() : q).executeTakeFirst()) ?? null;
}

/** `rejected` also finds cancelled proposals and failed executions, which are shown as rejected. */
export function listProposals(em: EntityManager, treasuryId: string, status?: ProposalStatus): Promise<ProposalRow[]> {
  let q = query(em).selectFrom('treasury_proposals').selectAll().where('treasury_id', '=', treasuryId);
  if (status === 'rejected') q = q.where('status', 'in', ['rejected', 'cancelled', 'failed']);
  else if (status) q = q.where('status', '=', status);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(500).execute();
}

/** from one of `from` → `to` (with the extra columns); null when it was in none of them. */
export async function moveProposal(tx: EntityManager, id: string, from: ProposalStatus[], to: ProposalStatus,
  extra: { transaction_id?: string; executed_tx_hash?: string; error_message?: string | null; executed?: boolean } = {}): Promise<ProposalRow | null> {
  const row = await query(tx).updateTable('treasury_proposals').set({
    status: to, updated_at: sql`now()`,
    ...(extra.transaction_id !== undefined ? { transaction_id: extra.transaction_id } : {}),
    ...(extra.executed_tx_hash !== undefined ? { executed_tx_hash: extra.executed_tx_hash } : {}),
    ...(extra.error_message !== undefined ? { error_message: extra.error_message } : {}),
    ...(extra.executed ? { executed_at: sql`now()` } : {}),
  }).where('id', '=', id).where('status', 'in', from).returningAll().executeTakeFirst();
  return row ?? null;
}

/** Records the execTransaction row once: only while none is recorded yet. */
export async function attachTransaction(tx: EntityManager, id: string, transactionId: string): Promise<boolean> {
  const r = await query(tx).updateTable('treasury_proposals').set({ transaction_id: transactionId, updated_at: sql`now()` })
    .where('id', '=', id).where('status', '=', 'executing').where('transaction_id', 'is', null).returning('id').executeTakeFirst();
  return r !== undefined;
}

/** pending|approved → expired, only once past expires_at. */
export async function expireProposal(tx: EntityManager, id: string): Promise<ProposalRow | null> {
  const row = await query(tx).updateTable('treasury_proposals').set({ status: 'expired', updated_at: sql`now()` })
    .where('id', '=', id).where('status', 'in', ['pending', 'approved']).where('expires_at', '<=', sql<Date>`now()`).returningAll().executeTakeFirst();
  return row ?? null;
}

/** The signer's decision; a repeated one by the same address replaces the earlier. */
export async function upsertSignature(tx: EntityManager, s: Omit<SignatureRow, 'created_at'>): Promise<SignatureRow> {
  return query(tx).insertInto('treasury_proposal_signatures').values(s)
    .onConflict((oc) => oc.columns(['proposal_id', 'signer_address']).doUpdateSet({
      signature: s.signature, decision: s.decision, signer_id: s.signer_id, signer_type: s.signer_type, created_at: sql`now()`,
    }))
    .returningAll().executeTakeFirstOrThrow();
}

export function signaturesOf(em: EntityManager, proposalIds: string[]): Promise<SignatureRow[]> {
  if (proposalIds.length === 0) return Promise.resolve([]);
  return query(em).selectFrom('treasury_proposal_signatures').selectAll().where('proposal_id', 'in', proposalIds).orderBy('created_at').orderBy('id').execute();
}

/** Proposals still open whose expiry timer may not have run (re-drive after Temporal lost it). */
export function openProposalsOlderThan(em: EntityManager, olderThanSeconds: number): Promise<Pick<ProposalRow, 'id' | 'org_id' | 'status' | 'expires_at'>[]> {
  return query(em).selectFrom('treasury_proposals').select(['id', 'org_id', 'status', 'expires_at'])
    .where('status', 'in', ['pending', 'approved', 'executing'])
    .where('updated_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`).limit(500).execute();
}
