// The statements of CMEK (customer-managed key) rotation jobs and of the vault's CMEK settings.
// The customer keys are stored only sealed under the job's own KMS key, and only while the job
// is open; every other column is metadata. Commands and activities decide; this file reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { query, withOrmErrors } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { loadJob, rotationRunning, type RotationJobRow } from './job-repository.ts';

export type VaultCmek = Pick<Selectable<Database['vaults']>, 'cmek_enabled' | 'cmek_fingerprint'>;

/** The vault's CMEK settings, its row locked for the caller's transaction (serializes enable, disable and job starts). */
export async function lockVaultCmek(tx: EntityManager, vaultId: string): Promise<VaultCmek> {
  return (await query(tx).selectFrom('vaults').select(['cmek_enabled', 'cmek_fingerprint']).where('id', '=', vaultId).forUpdate().executeTakeFirst())!;
}

export async function setVaultCmek(tx: EntityManager, vaultId: string, fingerprint: string | null): Promise<void> {
  await query(tx).updateTable('vaults').set({ cmek_enabled: fingerprint !== null, cmek_fingerprint: fingerprint }).where('id', '=', vaultId).execute();
}

export async function openCmekJobExists(tx: EntityManager, vaultId: string): Promise<boolean> {
  const rows = await query(tx).selectFrom('key_rotation_jobs').select('id')
    .where('vault_id', '=', vaultId).where('kind', '=', 'cmek').where('status', 'in', ['pending', 'running']).execute();
  return rows.length > 0;
}

/** How many versions of the vault (live or deleted secrets) are under the customer key `fingerprint`. */
export async function countCmekVersions(tx: EntityManager, vaultId: string, fingerprint: string): Promise<number> {
  const row = await query(tx).selectFrom('secret_versions as sv').innerJoin('secrets as s', 's.id', 'sv.secret_id')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('s.vault_id', '=', vaultId).where('sv.cmek_fingerprint', '=', fingerprint).executeTakeFirstOrThrow();
  return row.n;
}

export type NewCmekJob = {
  id: string; orgId: string; vaultId: string; oldFingerprint: string; newFingerprint: string; total: number;
  jobKeyRef: string; sealedOld: Buffer; sealedNew: Buffer; createdBy: string;
};

/** Inserts the job; a second open rotation of the vault (of either kind) is a 409. */
export async function insertCmekJob(tx: EntityManager, j: NewCmekJob): Promise<RotationJobRow> {
  try {
    await withOrmErrors(tx, query(tx).insertInto('key_rotation_jobs').values({
      id: j.id, org_id: j.orgId, vault_id: j.vaultId, kind: 'cmek', old_fingerprint: j.oldFingerprint, new_fingerprint: j.newFingerprint,
      total_secrets: j.total, job_key_ref: j.jobKeyRef, sealed_old_key: j.sealedOld, sealed_new_key: j.sealedNew, created_by: j.createdBy,
    }).execute());
  } catch (e) {
    if (e instanceof UniqueConstraintViolationException) throw rotationRunning();
    throw e;
  }
  return (await loadJob(tx, j.id))!;
}

export type SealedCmekKeys = { jobKeyRef: string; sealedOld: Buffer; sealedNew: Buffer };

export async function sealedKeysOf(tx: EntityManager, jobId: string): Promise<SealedCmekKeys | null> {
  const r = await query(tx).selectFrom('key_rotation_jobs').select(['job_key_ref', 'sealed_old_key', 'sealed_new_key'])
    .where('id', '=', jobId).executeTakeFirst();
  if (!r?.job_key_ref || !r.sealed_old_key || !r.sealed_new_key) return null;
  // bytea comes back as a Buffer (MikroORM's BlobType).
  return { jobKeyRef: r.job_key_ref, sealedOld: r.sealed_old_key as Buffer, sealedNew: r.sealed_new_key as Buffer };
}

/** Forgets the sealed keys and the job key's handle (the caller destroys the key in the KMS). */
export async function forgetSealedKeys(tx: EntityManager, jobId: string): Promise<void> {
  await query(tx).updateTable('key_rotation_jobs').set({ job_key_ref: null, sealed_old_key: null, sealed_new_key: null }).where('id', '=', jobId).execute();
}

export type VersionToReencrypt = { secret_id: string; version: number; path: string; ciphertext: Buffer; wrapped_key: Buffer; key_ref: string };

/** The next versions of the vault still under the customer key `oldFingerprint`, locked for this batch. */
export async function versionsToReencrypt(tx: EntityManager, vaultId: string, oldFingerprint: string, limit: number): Promise<VersionToReencrypt[]> {
  return await query(tx).selectFrom('secret_versions as sv').innerJoin('secrets as s', 's.id', 'sv.secret_id')
    .select(['sv.secret_id', 'sv.version', 's.path', 'sv.ciphertext', 'sv.wrapped_key', 'sv.key_ref'])
    .where('s.vault_id', '=', vaultId).where('sv.cmek_fingerprint', '=', oldFingerprint)
    .orderBy('sv.secret_id').orderBy('sv.version').limit(limit).forUpdate('sv').execute() as VersionToReencrypt[];
}

/** The new ciphertexts (same data key, fresh IV) and the new key's fingerprint, per version. */
export async function storeReencrypted(tx: EntityManager, rows: { secretId: string; version: number; ciphertext: Buffer }[], newFingerprint: string): Promise<void> {
  for (const r of rows) {
    await query(tx).updateTable('secret_versions').set({ ciphertext: r.ciphertext, cmek_fingerprint: newFingerprint })
      .where('secret_id', '=', r.secretId).where('version', '=', r.version).execute();
  }
}
