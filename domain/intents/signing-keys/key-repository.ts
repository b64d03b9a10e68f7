// The signing_keys table (migration 0019): every statement about its rows. Commands
// (signing-key-commands.ts) and the signer decide; this file only reads and writes. Rows hold
// public facts and where the handle is kept, never the handle.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { HandleLocation } from './key-handles.ts';

export type SigningKeyRow = {
  id: string; org_id: string; agent_id: string; chain: string; curve: string;
  /** 0x-hex of the 65-byte uncompressed SEC1 point. */
  public_key: string;
  /** EIP-55 checksummed. */
  address: string;
  key_version: number; is_active: boolean; key_backend: string;
  handle_vault_id: string; handle_path: string; handle_version: number;
  created_by: string; created_at: string | Date; rotated_at: string | Date | null; deactivated_at: string | Date | null;
};

export const SIGNING_KEY_COLUMNS = `id, org_id, agent_id, chain, curve, public_key, address, key_version, is_active, key_backend,
  handle_vault_id, handle_path, handle_version, created_by, created_at, rotated_at, deactivated_at`;

export const handleOf = (k: Pick<SigningKeyRow, 'handle_vault_id' | 'handle_path' | 'handle_version'>): HandleLocation =>
  ({ vaultId: k.handle_vault_id, path: k.handle_path, version: k.handle_version });

/** `rotated`: the key replaces an earlier one (rotated_at is then the time of the rotation). */
export type NewSigningKey = Omit<SigningKeyRow, 'is_active' | 'created_at' | 'rotated_at' | 'deactivated_at'> & { rotated: boolean };

export async function insertSigningKey(tx: EntityManager, k: NewSigningKey): Promise<SigningKeyRow> {
  const rows = await tx.execute<SigningKeyRow[]>(
    `INSERT INTO signing_keys (id, org_id, agent_id, chain, curve, public_key, address, key_version, key_backend,
       handle_vault_id, handle_path, handle_version, created_by, rotated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CASE WHEN ? THEN now() END) RETURNING ${SIGNING_KEY_COLUMNS}`,
    [k.id, k.org_id, k.agent_id, k.chain, k.curve, k.public_key, k.address, k.key_version, k.key_backend,
      k.handle_vault_id, k.handle_path, k.handle_version, k.created_by, k.rotated]);
  return rows[0]!;
}

/** Every key of the agent, active and retired, newest first. */
export function listSigningKeys(em: EntityManager, orgId: string, agentId: string): Promise<SigningKeyRow[]> {
  return em.execute<SigningKeyRow[]>(
    `SELECT ${SIGNING_KEY_COLUMNS} FROM signing_keys WHERE org_id = ? AND agent_id = ? ORDER BY created_at DESC, key_version DESC`, [orgId, agentId]);
}

/** The agent's active key on `chain`, or null; `lock` takes the row for a rotation or deactivation. */
export async function activeSigningKey(em: EntityManager, orgId: string, agentId: string, chain: string, lock = false): Promise<SigningKeyRow | null> {
  const rows = await em.execute<SigningKeyRow[]>(
    `SELECT ${SIGNING_KEY_COLUMNS} FROM signing_keys WHERE org_id = ? AND agent_id = ? AND chain = ? AND is_active${lock ? ' FOR UPDATE' : ''}`,
    [orgId, agentId, chain]);
  return rows[0] ?? null;
}

/** The version the agent's next key on `chain` gets (versions are never reused). */
export async function nextKeyVersion(tx: EntityManager, agentId: string, chain: string): Promise<number> {
  const rows = await tx.execute<{ v: number }[]>(
    'SELECT coalesce(max(key_version), 0)::int + 1 AS v FROM signing_keys WHERE agent_id = ? AND chain = ?', [agentId, chain]);
  return rows[0]!.v;
}

/** Retires an active key; false when it was no longer active (a concurrent change won). */
export async function deactivateSigningKey(tx: EntityManager, id: string): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    'UPDATE signing_keys SET is_active = false, deactivated_at = now() WHERE id = ? AND is_active RETURNING id', [id]);
  return rows.length > 0;
}

/** The organization's active keys and where their handles are (account deletion destroys them). */
export function activeKeysOfOrg(em: EntityManager, orgId: string): Promise<SigningKeyRow[]> {
  return em.execute<SigningKeyRow[]>(`SELECT ${SIGNING_KEY_COLUMNS} FROM signing_keys WHERE org_id = ? AND is_active`, [orgId]);
}
