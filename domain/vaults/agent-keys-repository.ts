// The organization's reserved vault `__agent-keys` and its items: every statement about them.
// agent-keys-vault.ts and agent-keys-items.ts decide (creation on first use, encryption); this
// file only reads and writes. The reserved vault's items are secrets and versions like any other,
// written without events or quota (agent-keys-items.ts says why).
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import type { Kms } from '../crypto/kms/kms.ts';

/** What writing to and reading from the vault needs. */
export type AgentKeysVault = { id: string; org_id: string; key_ref: string };

const VAULT_COLUMNS = ['id', 'org_id', 'key_ref'] as const;

export async function findAgentKeysVault(em: EntityManager, orgId: string): Promise<AgentKeysVault | null> {
  return (await query(em).selectFrom('vaults').select(VAULT_COLUMNS)
    .where('org_id', '=', orgId).where('kind', '=', 'agent_keys').where('deleted_at', 'is', null).executeTakeFirst()) ?? null;
}

/**
 * Inserts the organization's reserved vault unless it has one (the unique index
 * vaults_agent_keys_once): the new vault, or null when another request created it first.
 */
export async function insertAgentKeysVault(em: EntityManager, v: { id: string; orgId: string; name: string; keyBackend: Kms['backend']; keyRef: string; createdBy: string; createdByType: 'user' | 'agent' }): Promise<AgentKeysVault | null> {
  return (await query(em).insertInto('vaults')
    .values({
      id: v.id, org_id: v.orgId, name: v.name, description: "Reserved: handles of the agents' signing keys", kind: 'agent_keys',
      key_backend: v.keyBackend, key_ref: v.keyRef, created_by: v.createdBy, created_by_type: v.createdByType,
    })
    // The partial index's predicate, with its literal: Postgres proves the arbiter index from it.
    .onConflict((oc) => oc.column('org_id').where('kind', '=', sql.lit('agent_keys')).where('deleted_at', 'is', null).doNothing())
    .returning(VAULT_COLUMNS).executeTakeFirst()) ?? null;
}

/** The item's secret at its next version (created at version 1), live again if it was deleted. */
export async function nextItemVersion(tx: EntityManager, i: { id: string; orgId: string; vaultId: string; path: string; type: string; description: string; createdBy: string }): Promise<{ id: string; current_version: number }> {
  return query(tx).insertInto('secrets')
    .values({
      id: i.id, org_id: i.orgId, vault_id: i.vaultId, path: i.path, type: i.type, current_version: 1, description: i.description, created_by: i.createdBy,
    })
    .onConflict((oc) => oc.columns(['vault_id', 'path']).doUpdateSet((eb) => ({
      current_version: eb('secrets.current_version', '+', 1), deleted_at: null, updated_at: sql`now()`,
    })))
    .returning(['id', 'current_version']).executeTakeFirstOrThrow();
}

export async function insertItemVersion(tx: EntityManager, v: { secretId: string; version: number; ciphertext: Buffer; wrappedKey: Buffer; keyRef: string; type: string; createdBy: string }): Promise<void> {
  await query(tx).insertInto('secret_versions').values({
    secret_id: v.secretId, version: v.version, ciphertext: v.ciphertext, wrapped_key: v.wrappedKey, key_ref: v.keyRef, type: v.type, created_by: v.createdBy,
  }).execute();
}

export type SealedItem = { ciphertext: Buffer; wrapped_key: Buffer; key_ref: string };

/** The sealed value at this version of a live item of `orgId`'s reserved vault, unless disabled. */
export async function sealedItem(em: EntityManager, orgId: string, at: { vaultId: string; path: string; version: number }): Promise<SealedItem | undefined> {
  return await query(em).selectFrom('secrets as s')
    .innerJoin('secret_versions as sv', 'sv.secret_id', 's.id')
    .innerJoin('vaults as v', (j) => j.onRef('v.id', '=', 's.vault_id').on('v.org_id', '=', orgId).on('v.kind', '=', 'agent_keys'))
    .select(['sv.ciphertext', 'sv.wrapped_key', 'sv.key_ref'])
    .where('s.vault_id', '=', at.vaultId).where('s.path', '=', at.path).where('s.deleted_at', 'is', null)
    .where('sv.version', '=', at.version).where('sv.disabled_at', 'is', null)
    .executeTakeFirst() as SealedItem | undefined;
}

/** Erases the ciphertext and wrapped data key of every version of the secret `secretId` not erased yet. */
export async function shredVersions(tx: EntityManager, secretId: string): Promise<void> {
  await query(tx).updateTable('secret_versions')
    .set({ ciphertext: Buffer.alloc(0), wrapped_key: Buffer.alloc(0), disabled_at: sql`coalesce(disabled_at, now())` })
    .where('secret_id', '=', secretId).where((eb) => eb(eb.fn('octet_length', ['ciphertext']), '>', 0)).execute();
}
