// The organization's reserved vault `__treasury-keys` (kind 'treasury_keys') and its sealed keys:
// every statement about them. Items are secrets and versions like any other vault's, written
// without `secret.*` events or the secrets quota (as the `__agent-keys` items: the reserved vault is
// not a user's vault). Users never reach it through the vault, secret, policy or share routes:
// they all select kind = 'standard' only.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../../db/query.ts';
import type { Kms } from '../../crypto/kms/kms.ts';

export const TREASURY_KEYS_VAULT = '__treasury-keys';

/** What sealing into and reading from the vault needs. */
export type TreasuryKeysVault = { id: string; org_id: string; key_ref: string };

const VAULT_COLUMNS = ['id', 'org_id', 'key_ref'] as const;

export async function findTreasuryKeysVault(em: EntityManager, orgId: string): Promise<TreasuryKeysVault | null> {
  return (await query(em).selectFrom('vaults').select(VAULT_COLUMNS)
    .where('org_id', '=', orgId).where('kind', '=', 'treasury_keys').where('deleted_at', 'is', null).executeTakeFirst()) ?? null;
}

/** Inserts the organization's reserved vault unless it has one (vaults_treasury_keys_once); null when another request won. */
export async function insertTreasuryKeysVault(em: EntityManager, v: { id: string; orgId: string; keyBackend: Kms['backend']; keyRef: string; createdBy: string }): Promise<TreasuryKeysVault | null> {
  return (await query(em).insertInto('vaults')
    .values({
      id: v.id, org_id: v.orgId, name: TREASURY_KEYS_VAULT, description: "Reserved: private keys of the organization's treasury wallets", kind: 'treasury_keys',
      key_backend: v.keyBackend, key_ref: v.keyRef, created_by: v.createdBy, created_by_type: 'user',
    })
    .onConflict((oc) => oc.column('org_id').where('kind', '=', sql.lit('treasury_keys')).where('deleted_at', 'is', null).doNothing())
    .returning(VAULT_COLUMNS).executeTakeFirst()) ?? null;
}

/** The key's secret at its next version (created at version 1). */
export async function nextKeyItemVersion(tx: EntityManager, i: { id: string; orgId: string; vaultId: string; path: string; createdBy: string }): Promise<{ id: string; current_version: number }> {
  return query(tx).insertInto('secrets')
    .values({
      id: i.id, org_id: i.orgId, vault_id: i.vaultId, path: i.path, type: 'private_key', current_version: 1,
      description: 'Private key of a treasury wallet', created_by: i.createdBy,
    })
    .onConflict((oc) => oc.columns(['vault_id', 'path']).doUpdateSet((eb) => ({ current_version: eb('secrets.current_version', '+', 1), updated_at: sql`now()` })))
    .returning(['id', 'current_version']).executeTakeFirstOrThrow();
}

export async function insertKeyItemVersion(tx: EntityManager, v: { secretId: string; version: number; ciphertext: Buffer; wrappedKey: Buffer; keyRef: string; createdBy: string }): Promise<void> {
  await query(tx).insertInto('secret_versions').values({
    secret_id: v.secretId, version: v.version, ciphertext: v.ciphertext, wrapped_key: v.wrappedKey, key_ref: v.keyRef, type: 'private_key', created_by: v.createdBy,
  }).execute();
}

export type SealedKey = { ciphertext: Buffer; wrapped_key: Buffer; key_ref: string };

/** The sealed key at this version of the organization's reserved treasury vault. */
export async function sealedKey(em: EntityManager, orgId: string, at: { vaultId: string; path: string; version: number }): Promise<SealedKey | undefined> {
  return await query(em).selectFrom('secrets as s')
    .innerJoin('secret_versions as sv', 'sv.secret_id', 's.id')
    .innerJoin('vaults as v', (j) => j.onRef('v.id', '=', 's.vault_id').on('v.org_id', '=', orgId).on('v.kind', '=', 'treasury_keys'))
    .select(['sv.ciphertext', 'sv.wrapped_key', 'sv.key_ref'])
    .where('s.vault_id', '=', at.vaultId).where('s.path', '=', at.path).where('s.deleted_at', 'is', null).where('sv.version', '=', at.version)
    .executeTakeFirst() as SealedKey | undefined;
}
