// The vaults table: every statement about vault rows. Commands (vault-commands.ts) decide;
// this file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/principal.ts';
import { canSeeVault, type Caller, type PolicyRow } from '../access/access.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';

export const AGENT_KEYS_VAULT = '__agent-keys';

export type VaultRow = {
  id: string; org_id: string; name: string; description: string; kind: 'standard' | 'agent_keys';
  key_backend: string; key_ref: string; created_by: string; created_by_type: 'user' | 'agent';
  cmek_enabled: boolean; cmek_fingerprint: string | null; created_at: string | Date;
};

/** Inserts a vault whose key `keyRef` the KMS already holds. */
export async function insertVault(tx: EntityManager, id: string, keyBackend: string, keyRef: string, p: Principal, input: { name: string; description: string }): Promise<VaultRow> {
  const rows = await tx.execute<VaultRow[]>(
    `INSERT INTO vaults (id, org_id, name, description, key_backend, key_ref, created_by, created_by_type)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [id, p.orgId, input.name, input.description, keyBackend, keyRef, p.id, p.type]);
  return rows[0]!;
}

/** Policies of this caller on these vaults, grouped by vault id. */
export async function policiesOf(em: EntityManager, p: Principal, vaultIds: string[]): Promise<Map<string, PolicyRow[]>> {
  const out = new Map<string, PolicyRow[]>();
  if (vaultIds.length === 0) return out;
  const rows = await em.execute<(PolicyRow & { vault_id: string })[]>(
    `SELECT id, vault_id, secret_path_pattern, permissions, conditions, expires_at, effect FROM policies
     WHERE principal_type = ? AND principal_id = ? AND vault_id IN (${vaultIds.map(() => '?').join(', ')})`, [p.type, p.id, ...vaultIds]);
  for (const r of rows) out.set(r.vault_id, [...(out.get(r.vault_id) ?? []), r]);
  return out;
}

export async function listVisibleVaults(em: EntityManager, c: Caller): Promise<VaultRow[]> {
  const vaults = await em.execute<VaultRow[]>(
    "SELECT * FROM vaults WHERE org_id = ? AND deleted_at IS NULL AND kind = 'standard' ORDER BY created_at", [c.principal.orgId]);
  const policies = await policiesOf(em, c.principal, vaults.map((v) => v.id));
  return vaults.filter((v) => canSeeVault(c, v, policies.get(v.id) ?? []));
}

/** A standard vault the caller may see; anything else (missing, other org, invisible) is a 404. */
export async function loadVisibleVault(em: EntityManager, c: Caller, vaultId: string): Promise<{ vault: VaultRow; policies: PolicyRow[] }> {
  if (!isUuid(vaultId)) throw notFound('Vault');
  const rows = await em.execute<VaultRow[]>(
    "SELECT * FROM vaults WHERE id = ? AND org_id = ? AND deleted_at IS NULL AND kind = 'standard'", [vaultId, c.principal.orgId]);
  const vault = rows[0];
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
  await tx.execute("UPDATE vaults SET deleted_at = now(), key_ref = 'destroyed' WHERE id = ? AND deleted_at IS NULL", [vaultId]);
  await tx.execute('UPDATE secrets SET deleted_at = coalesce(deleted_at, now()) WHERE vault_id = ?', [vaultId]);
}
