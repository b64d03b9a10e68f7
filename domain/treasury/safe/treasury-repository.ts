// Treasuries and their signers (migration 0035): every statement about those rows.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../../db/query.ts';
import type { Database } from '../../../db/entities/index.ts';
import { isUuid } from '../../ids.ts';

export type TreasuryRow = Selectable<Database['treasuries']>;
export type SignerRow = Selectable<Database['treasury_signers']>;
export type SignerType = SignerRow['signer_type'];
export type NewSigner = { signerType: SignerType; signerId: string; signerAddress: string };

export type NewTreasury = {
  id: string; orgId: string; name: string; safeAddress: string; chain: string; chainId: number; threshold: number; createdBy: string;
  gasPayerAgentId: string | null;
};

export async function insertTreasury(tx: EntityManager, t: NewTreasury): Promise<TreasuryRow | null> {
  const row = await query(tx).insertInto('treasuries').values({
    id: t.id, org_id: t.orgId, name: t.name, safe_address: t.safeAddress, chain: t.chain, chain_id: t.chainId, threshold: t.threshold,
    created_by: t.createdBy, gas_payer_agent_id: t.gasPayerAgentId,
  }).onConflict((oc) => oc.columns(['org_id', 'chain_id', 'safe_address']).doNothing()).returningAll().executeTakeFirst();
  return row ?? null;
}

export async function findTreasury(em: EntityManager, orgId: string, id: string, forUpdate = false): Promise<TreasuryRow | null> {
  if (!isUuid(id)) return null;
  const q = query(em).selectFrom('treasuries').selectAll().where('id', '=', id).where('org_id', '=', orgId);
  return (await (forUpdate ? q.forUpdate() : q).executeTakeFirst()) ?? null;
}

export async function findTreasuryById(em: EntityManager, id: string): Promise<TreasuryRow | null> {
  return (await query(em).selectFrom('treasuries').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export function listTreasuries(em: EntityManager, orgId: string): Promise<TreasuryRow[]> {
  return query(em).selectFrom('treasuries').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
}

export async function updateTreasury(tx: EntityManager, id: string, c: { name?: string; threshold?: number; gasPayerAgentId?: string | null }): Promise<TreasuryRow> {
  return query(tx).updateTable('treasuries').set({
    ...(c.name !== undefined ? { name: c.name } : {}),
    ...(c.threshold !== undefined ? { threshold: c.threshold } : {}),
    ...(c.gasPayerAgentId !== undefined ? { gas_payer_agent_id: c.gasPayerAgentId } : {}),
    updated_at: sql`now()`,
  }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteTreasury(tx: EntityManager, id: string): Promise<void> {
  await query(tx).deleteFrom('treasuries').where('id', '=', id).execute();
}

/** The signer, or null when the address is already one of the treasury's. */
export async function insertSigner(tx: EntityManager, treasuryId: string, s: NewSigner & { id: string }): Promise<SignerRow | null> {
  const row = await query(tx).insertInto('treasury_signers').values({
    id: s.id, treasury_id: treasuryId, signer_type: s.signerType, signer_id: s.signerId, signer_address: s.signerAddress,
  }).onConflict((oc) => oc.columns(['treasury_id', 'signer_address']).doNothing()).returningAll().executeTakeFirst();
  return row ?? null;
}

export function signersOf(em: EntityManager, treasuryIds: string[]): Promise<SignerRow[]> {
  if (treasuryIds.length === 0) return Promise.resolve([]);
  return query(em).selectFrom('treasury_signers').selectAll().where('treasury_id', 'in', treasuryIds).orderBy('added_at').orderBy('id').execute();
}

export async function deleteSigner(tx: EntityManager, treasuryId: string, signerId: string): Promise<boolean> {
  if (!isUuid(signerId)) return false;
  const r = await query(tx).deleteFrom('treasury_signers').where('treasury_id', '=', treasuryId).where('id', '=', signerId).returning('id').executeTakeFirst();
  return r !== undefined;
}

export async function countSigners(tx: EntityManager, treasuryId: string): Promise<number> {
  const r = await query(tx).selectFrom('treasury_signers').select(sql<number>`count(*)::int`.as('n')).where('treasury_id', '=', treasuryId).executeTakeFirstOrThrow();
  return r.n;
}

/** Whether the principal id exists in the organization as that kind (a user or an agent). */
export async function principalExists(em: EntityManager, orgId: string, type: SignerType, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const r = type === 'user'
    ? await query(em).selectFrom('users').select('id').where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst()
    : await query(em).selectFrom('agents').select('id').where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
  return r !== undefined;
}
