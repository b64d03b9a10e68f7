// The vaults table: every statement about vault rows. Commands (vault-commands.ts) decide;
// this file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import type { VaultRow } from '../../db/entities/index.ts';
import { creatorType, type Principal } from '../auth/principal.ts';
import type { Kms } from '../crypto/kms/kms.ts';
import { canSeeVault, type Caller, type PolicyRow } from '../access/access.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';

export const AGENT_KEYS_VAULT = '__agent-keys';

export type { VaultRow };

/** Inserts a vault whose key `keyRef` the KMS already holds. */
export async function insertVault(tx: EntityManager, id: string, keyBackend: Kms['backend'], keyRef: string, p: Principal, input: { name: string; description: string }): Promise<VaultRow> {
  return query(tx).insertInto('vaults')
    .values({ id, org_id: p.orgId, name: input.name, description: input.description, key_backend: keyBackend, key_ref: keyRef, created_by: p.id, created_by_type: creatorType(p) })
    .returningAll().executeTakeFirstOrThrow();
}

/** Policies of this caller on these vaults, grouped by vault id. */
export async function policiesOf(em: EntityManager, p: Principal, vaultIds: string[]): Promise<Map<string, PolicyRow[]>> {
  const out = new Map<string, PolicyRow[]>();
  if (vaultIds.length === 0) return out;
  const rows = await query(em).selectFrom('policies')
    .select(['id', 'vault_id', 'secret_path_pattern', 'permissions', 'conditions', 'expires_at', 'effect'])
    .where('principal_type', '=', p.type).where('principal_id', '=', p.id).where('vault_id', 'in', vaultIds).execute();
  for (const r of rows) out.set(r.vault_id, [...(out.get(r.vault_id) ?? []), r]);
  return out;
}

export async function listVisibleVaults(em: EntityManager, c: Caller): Promise<VaultRow[]> {
  const vaults = await query(em).selectFrom('vaults').selectAll()
    .where('org_id', '=', c.principal.orgId).where('deleted_at', 'is', null).where('kind', '=', 'standard').orderBy('created_at').execute();
  const policies = await policiesOf(em, c.principal, vaults.map((v) => v.id));
  return vaults.filter((v) => canSeeVault(c, v, policies.get(v.id) ?? []));
}

/** A standard vault the caller may see; anything else (missing, other org, invisible) is a 404. */
export async function loadVisibleVault(em: EntityManager, c: Caller, vaultId: string): Promise<{ vault: VaultRow; policies: PolicyRow[] }> {
  if (!isUuid(vaultId)) throw notFound('Vault');
  const vault = await query(em).selectFrom('vaults').selectAll()
    .where('id', '=', vaultId).where('org_id', '=', c.principal.orgId).where('deleted_at', 'is', null).where('kind', '=', 'standard')
    .executeTakeFirst();
  if (!vault) throw notFound('Vault');
  const policies = (await policiesOf(em, c.principal, [vault.id])).get(vault.id) ?? [];
  if (!canSeeVault(c, vault, policies)) throw notFound('Vault');
  return { vault, policies };
}

/**
 * Crypto-shredding, first half: the vault row forgets its key reference (for `local`, the sealed
 * key itself) and its secrets are soft-deleted. The caller then destroys the key in the KMS.
 */
export async function markVaultDeleted(tx: EntityManager, vaultId: string): Promise<void> {
  const q = query(tx);
  await q.updateTable('vaults').set({ deleted_at: sql`now()`, key_ref: 'destroyed' }).where('id', '=', vaultId).where('deleted_at', 'is', null).execute();
  await q.updateTable('secrets').set({ deleted_at: sql`coalesce(deleted_at, now())` }).where('vault_id', '=', vaultId).execute();
}
