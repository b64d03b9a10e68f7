// Vault records: creation with its own KMS key, visibility-filtered listing, deletion.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { Principal } from '../auth/principal.ts';
import { assertBelowTierLimit } from '../limits/tier-limits.ts';
import { canSeeVault, type Caller, type PolicyRow } from '../policies/access.ts';
import { iso } from '../time.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';

export const AGENT_KEYS_VAULT = '__agent-keys';

export type VaultRow = {
  id: string; org_id: string; name: string; description: string; kind: 'standard' | 'agent_keys';
  key_backend: string; key_ref: string; created_by: string; created_by_type: 'user' | 'agent';
  cmek_enabled: boolean; cmek_fingerprint: string | null; created_at: string | Date;
};

export function presentVault(v: VaultRow) {
  return {
    id: v.id,
    name: v.name,
    description: v.description,
    created_by: v.created_by,
    created_by_type: v.created_by_type,
    created_at: iso(v.created_at),
    cmek_enabled: v.cmek_enabled,
    cmek_fingerprint: v.cmek_fingerprint,
    mpc_custody: null,
    mpc_threshold: null,
    mpc_providers: [],
  };
}

export async function createVault(tx: EntityManager, kms: Kms, p: Principal, input: { name: string; description: string }): Promise<VaultRow> {
  await assertBelowTierLimit(tx, p.orgId, 'vaults');
  const id = randomUUID();
  const keyRef = await kms.createVaultKey(id);
  const rows = await tx.execute<VaultRow[]>(
    `INSERT INTO vaults (id, org_id, name, description, key_backend, key_ref, created_by, created_by_type)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [id, p.orgId, input.name, input.description, kms.backend, keyRef, p.id, p.type]);
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
