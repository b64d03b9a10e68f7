// The secrets and secret_versions tables: every statement about them outside the hot lookup
// (secret-read-repository.ts). Commands (secret-write.ts, secret-commands.ts) decide; this file
// only reads and writes. Counters and the version number change in single conditional statements.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

export type SecretRow = Selectable<Database['secrets']>;
/** A version row; its bytes are Buffers (MikroORM's BlobType). */
export type SecretVersionRow = Omit<Selectable<Database['secret_versions']>, 'ciphertext' | 'wrapped_key'> & { ciphertext: Buffer; wrapped_key: Buffer };

/** Whether a secret row exists at the path, and whether it is deleted. */
export type SecretState = Pick<SecretRow, 'deleted_at'>;

/** The secret at `path` in the vault, live or deleted; `lock` takes its row for the transaction (FOR UPDATE). */
export async function secretStateAt(tx: EntityManager, vaultId: string, path: string, lock = false): Promise<SecretState | undefined> {
  const q = query(tx).selectFrom('secrets').select('deleted_at').where('vault_id', '=', vaultId).where('path', '=', path);
  return (lock ? q.forUpdate() : q).executeTakeFirst();
}

/** What a write changes of the secret's own row; undefined fields stay as they are on an update. */
export type SecretHeadInput = {
  id: string; orgId: string; vaultId: string; path: string; createdBy: string;
  type?: string;
  metadata?: Record<string, unknown>;
  description?: string | null;
  expiresAt?: Date | null;
  /** Set (and the count reset) when defined. */
  maxAccessCount?: number | null;
  rotationPolicy?: Record<string, unknown> | null;
};

export type SecretHead = Pick<SecretRow, 'id' | 'current_version' | 'type' | 'metadata' | 'description' | 'expires_at' | 'max_access_count' | 'rotation_policy'>;

/**
 * Creates the secret at version 1, or moves an existing one (live or deleted) to its next version
 * and applies the given changes: one upsert, so concurrent writers to one path each get their own
 * version number.
 */
export async function upsertSecretHead(tx: EntityManager, h: SecretHeadInput): Promise<SecretHead> {
  return query(tx).insertInto('secrets')
    .values({
      id: h.id, org_id: h.orgId, vault_id: h.vaultId, path: h.path, type: h.type ?? 'generic', current_version: 1,
      metadata: h.metadata ?? {}, description: h.description ?? null, expires_at: h.expiresAt ?? null, created_by: h.createdBy,
      max_access_count: h.maxAccessCount ?? null, rotation_policy: h.rotationPolicy ?? null,
    })
    .onConflict((oc) => oc.columns(['vault_id', 'path']).doUpdateSet((eb) => ({
      current_version: eb('secrets.current_version', '+', 1),
      ...(h.type !== undefined ? { type: eb.ref('excluded.type') } : {}),
      ...(h.metadata !== undefined ? { metadata: eb.ref('excluded.metadata') } : {}),
      ...(h.description !== undefined ? { description: eb.ref('excluded.description') } : {}),
      ...(h.expiresAt !== undefined ? { expires_at: eb.ref('excluded.expires_at') } : {}),
      ...(h.maxAccessCount !== undefined ? { max_access_count: eb.ref('excluded.max_access_count'), access_count: 0 } : {}),
      ...(h.rotationPolicy !== undefined ? { rotation_policy: eb.ref('excluded.rotation_policy') } : {}),
      deleted_at: null,
      updated_at: sql`now()`,
    })))
    .returning(['id', 'current_version', 'type', 'metadata', 'description', 'expires_at', 'max_access_count', 'rotation_policy'])
    .executeTakeFirstOrThrow();
}

export type NewVersion = Pick<SecretVersionRow, 'secret_id' | 'version' | 'ciphertext' | 'wrapped_key' | 'key_ref' | 'type' | 'metadata' | 'description' | 'expires_at' | 'created_by'>;

/**
 * Inserts a version. A client's value in a vault with CMEK on (`clientValue`) is marked with the
 * key's fingerprint as it is now: read in this statement, so it agrees with the fingerprint a
 * rotation opening concurrently sees. Returns its created_at.
 */
export async function insertVersion(tx: EntityManager, v: NewVersion, vaultId: string, clientValue: boolean): Promise<Date> {
  const row = await query(tx).insertInto('secret_versions')
    .values((eb) => ({
      ...v,
      cmek_fingerprint: clientValue
        ? eb.selectFrom('vaults').select('cmek_fingerprint').where('id', '=', vaultId).where('cmek_enabled', '=', true)
        : null,
    }))
    .returning('created_at').executeTakeFirstOrThrow();
  return row.created_at;
}

/** Soft delete of the live secret at `path`: its id, or null when there is none. */
export async function markSecretDeleted(tx: EntityManager, vaultId: string, path: string): Promise<string | null> {
  const row = await query(tx).updateTable('secrets').set({ deleted_at: sql`now()`, updated_at: sql`now()` })
    .where('vault_id', '=', vaultId).where('path', '=', path).where('deleted_at', 'is', null)
    .returning('id').executeTakeFirst();
  return row?.id ?? null;
}

/**
 * Counts one read of a capped secret, atomically: false when the cap is already reached (the
 * read is refused). One conditional UPDATE, so parallel reads can never exceed the cap.
 */
export async function countCappedRead(em: EntityManager, secretId: string): Promise<boolean> {
  const rows = await query(em).updateTable('secrets').set((eb) => ({ access_count: eb('access_count', '+', 1) }))
    .where('id', '=', secretId).where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('max_access_count', 'is', null), eb('access_count', '<', eb.ref('max_access_count'))]))
    .returning('id').execute();
  return rows.length > 0;
}

/** Disables one version of a live secret (reads of it answer 410); the secret's id, or null when there is none. */
export async function disableVersion(tx: EntityManager, vaultId: string, path: string, version: number): Promise<string | null> {
  const row = await query(tx).updateTable('secret_versions as sv').from('secrets as s')
    .set({ disabled_at: sql`coalesce(sv.disabled_at, now())` })
    .whereRef('s.id', '=', 'sv.secret_id').where('s.vault_id', '=', vaultId).where('s.path', '=', path).where('s.deleted_at', 'is', null)
    .where('sv.version', '=', version)
    .returning('s.id').executeTakeFirst();
  return row?.id ?? null;
}

/** The type of a live secret, or null when there is none at `path`. */
export async function liveSecretType(em: EntityManager, vaultId: string, path: string): Promise<string | null> {
  const row = await query(em).selectFrom('secrets').select('type')
    .where('vault_id', '=', vaultId).where('path', '=', path).where('deleted_at', 'is', null).executeTakeFirst();
  return row?.type ?? null;
}

export type SecretMetaRow = Pick<SecretRow, 'id' | 'path' | 'type' | 'current_version' | 'metadata' | 'description' | 'created_at' | 'updated_at' | 'expires_at'>;

/**
 * Up to `limit` live secrets of a vault after `after` in byte order of the path (COLLATE "C", the
 * order of the path index), whose path starts with `prefix`.
 */
export async function secretsAfter(em: EntityManager, vaultId: string, after: string, prefix: string, limit: number): Promise<SecretMetaRow[]> {
  const pathC = sql<string>`path COLLATE "C"`;
  return query(em).selectFrom('secrets')
    .select(['id', 'path', 'type', 'current_version', 'metadata', 'description', 'created_at', 'updated_at', 'expires_at'])
    .where('vault_id', '=', vaultId).where('deleted_at', 'is', null).where(pathC, '>', after)
    // Backslash is LIKE's escape character: the prefix's own %, _ and \ match themselves.
    .where('path', 'like', `${prefix.replace(/[\\%_]/g, (m) => `\\${m}`)}%`)
    .orderBy(pathC).limit(limit).execute();
}

export type VersionRow = { id: SecretRow['id'] } & Pick<SecretVersionRow, 'version' | 'type' | 'metadata' | 'description' | 'created_at' | 'expires_at' | 'disabled_at' | 'created_by'>;

/** Every version of the live secret at `path`, newest first. */
export async function versionsOf(em: EntityManager, vaultId: string, path: string): Promise<VersionRow[]> {
  return query(em).selectFrom('secrets as s').innerJoin('secret_versions as v', 'v.secret_id', 's.id')
    .select(['s.id', 'v.version', 'v.type', 'v.metadata', 'v.description', 'v.created_at', 'v.expires_at', 'v.disabled_at', 'v.created_by'])
    .where('s.vault_id', '=', vaultId).where('s.path', '=', path).where('s.deleted_at', 'is', null)
    .orderBy('v.version', 'desc').execute();
}
