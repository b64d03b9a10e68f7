// The signing_keys table (migration 0019): every statement about its rows, and the erasing of a
// retired key's stored handle. Commands (signing-key-commands.ts) and the signer decide; this file
// only reads and writes. Rows hold public facts and where the handle is kept, never the handle.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query, withOrmErrors } from '../../../db/query.ts';
import type { Database } from '../../../db/entities/index.ts';
import type { HandleLocation } from './key-handles.ts';


// Every column; the signing hot path reads them in its own statement (signing-agent-repository.ts).
export const SIGNING_KEY_COLUMNS = [
  'id', 'org_id', 'agent_id', 'chain', 'curve', 'public_key', 'address', 'key_version', 'is_active', 'key_backend',
  'handle_vault_id', 'handle_path', 'handle_version', 'created_by', 'created_at', 'rotated_at', 'deactivated_at',
] as const;

/** `public_key`: 0x-hex of the 65-byte uncompressed SEC1 point; `address`: EIP-55 checksummed. */
export type SigningKeyRow = Pick<Selectable<Database['signing_keys']>, (typeof SIGNING_KEY_COLUMNS)[number]>;

export const handleOf = (k: Pick<SigningKeyRow, 'handle_vault_id' | 'handle_path' | 'handle_version'>): HandleLocation =>
  ({ vaultId: k.handle_vault_id, path: k.handle_path, version: k.handle_version });

/** `rotated`: the key replaces an earlier one (rotated_at is then the time of the rotation). */
export type NewSigningKey = Omit<SigningKeyRow, 'is_active' | 'created_at' | 'rotated_at' | 'deactivated_at'> & { rotated: boolean };

/** A second active key of the agent on the chain raises the unique violation of signing_keys_one_active. */
export function insertSigningKey(tx: EntityManager, k: NewSigningKey): Promise<SigningKeyRow> {
  const { rotated, ...row } = k;
  return withOrmErrors(tx, query(tx).insertInto('signing_keys').values({ ...row, rotated_at: rotated ? sql`now()` : null })
    .returning(SIGNING_KEY_COLUMNS).executeTakeFirstOrThrow());
}

/** Every key of the agent, active and retired, newest first. */
export function listSigningKeys(em: EntityManager, orgId: string, agentId: string): Promise<SigningKeyRow[]> {
  return query(em).selectFrom('signing_keys').select(SIGNING_KEY_COLUMNS).where('org_id', '=', orgId).where('agent_id', '=', agentId)
    .orderBy('created_at', 'desc').orderBy('key_version', 'desc').execute();
}

/** The agent's active key on `chain`, or null; `lock` takes the row for a rotation or deactivation. */
export async function activeSigningKey(em: EntityManager, orgId: string, agentId: string, chain: SigningKeyRow['chain'], lock = false): Promise<SigningKeyRow | null> {
  const q = query(em).selectFrom('signing_keys').select(SIGNING_KEY_COLUMNS)
    .where('org_id', '=', orgId).where('agent_id', '=', agentId).where('chain', '=', chain).where('is_active', '=', true);
  return (await (lock ? q.forUpdate() : q).executeTakeFirst()) ?? null;
}

/** The version the agent's next key on `chain` gets (versions are never reused). */
export async function nextKeyVersion(tx: EntityManager, agentId: string, chain: SigningKeyRow['chain']): Promise<number> {
  const row = await query(tx).selectFrom('signing_keys').select(sql<number>`coalesce(max(key_version), 0)::int + 1`.as('v'))
    .where('agent_id', '=', agentId).where('chain', '=', chain).executeTakeFirstOrThrow();
  return row.v;
}

/** Retires an active key; false when it was no longer active (a concurrent change won). */
export async function deactivateSigningKey(tx: EntityManager, id: string): Promise<boolean> {
  const row = await query(tx).updateTable('signing_keys').set({ is_active: false, deactivated_at: sql`now()` })
    .where('id', '=', id).where('is_active', '=', true).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** The organization's active keys and where their handles are (account deletion destroys them). */
export function activeKeysOfOrg(em: EntityManager, orgId: string): Promise<SigningKeyRow[]> {
  return query(em).selectFrom('signing_keys').select(SIGNING_KEY_COLUMNS).where('org_id', '=', orgId).where('is_active', '=', true).execute();
}

/** Erases the stored handle at `at` (its secret version's ciphertext and wrapped key) and disables that version. */
export async function shredHandleVersion(tx: EntityManager, at: HandleLocation): Promise<void> {
  await query(tx).updateTable('secret_versions as sv').from('secrets as s')
    .set({ ciphertext: Buffer.alloc(0), wrapped_key: Buffer.alloc(0), disabled_at: sql`coalesce(sv.disabled_at, now())` })
    .whereRef('s.id', '=', 'sv.secret_id').where('s.vault_id', '=', at.vaultId).where('s.path', '=', at.path).where('sv.version', '=', at.version)
    .execute();
}
