// The statements of CMEK (customer-managed key) rotation jobs and of the vault's CMEK settings.
// The customer keys are stored only sealed under the job's own KMS key, and only while the job
// is open; every other column is metadata. Commands and activities decide; this file reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { conflict } from '../errors.ts';
import { loadJob, type RotationJobRow } from './job-repository.ts';

export type VaultCmek = { cmek_enabled: boolean; cmek_fingerprint: string | null };

/** The vault's CMEK settings, its row locked for the caller's transaction (serializes enable, disable and job starts). */
export async function lockVaultCmek(tx: EntityManager, vaultId: string): Promise<VaultCmek> {
  const rows = await tx.execute<VaultCmek[]>('SELECT cmek_enabled, cmek_fingerprint FROM vaults WHERE id = ? FOR UPDATE', [vaultId]);
  return rows[0]!;
}

export async function setVaultCmek(tx: EntityManager, vaultId: string, fingerprint: string | null): Promise<void> {
  await tx.execute('UPDATE vaults SET cmek_enabled = ?, cmek_fingerprint = ? WHERE id = ?', [fingerprint !== null, fingerprint, vaultId]);
}

export async function openCmekJobExists(tx: EntityManager, vaultId: string): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    "SELECT id FROM key_rotation_jobs WHERE vault_id = ? AND kind = 'cmek' AND status IN ('pending', 'running')", [vaultId]);
  return rows.length > 0;
}

/** How many versions of the vault (live or deleted secrets) are under the customer key `fingerprint`. */
export async function countCmekVersions(tx: EntityManager, vaultId: string, fingerprint: string): Promise<number> {
  const rows = await tx.execute<{ n: number }[]>(
    'SELECT count(*)::int AS n FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id WHERE s.vault_id = ? AND sv.cmek_fingerprint = ?', [vaultId, fingerprint]);
  return rows[0]!.n;
}

export type NewCmekJob = {
  id: string; orgId: string; vaultId: string; oldFingerprint: string; newFingerprint: string; total: number;
  jobKeyRef: string; sealedOld: Buffer; sealedNew: Buffer; createdBy: string;
};

/** Inserts the job; a second open rotation of the vault (of either kind) is a 409. */
export async function insertCmekJob(tx: EntityManager, j: NewCmekJob): Promise<RotationJobRow> {
  try {
    await tx.execute(
      `INSERT INTO key_rotation_jobs (id, org_id, vault_id, kind, old_fingerprint, new_fingerprint, total_secrets, job_key_ref, sealed_old_key, sealed_new_key, created_by)
       VALUES (?, ?, ?, 'cmek', ?, ?, ?, ?, ?, ?, ?)`,
      [j.id, j.orgId, j.vaultId, j.oldFingerprint, j.newFingerprint, j.total, j.jobKeyRef, j.sealedOld, j.sealedNew, j.createdBy]);
  } catch (e) {
    if (e instanceof UniqueConstraintViolationException) throw conflict('A key rotation of this vault is already running; wait for it to finish');
    throw e;
  }
  return (await loadJob(tx, j.id))!;
}

export type SealedCmekKeys = { jobKeyRef: string; sealedOld: Buffer; sealedNew: Buffer };

export async function sealedKeysOf(tx: EntityManager, jobId: string): Promise<SealedCmekKeys | null> {
  const rows = await tx.execute<{ job_key_ref: string | null; sealed_old_key: Buffer | null; sealed_new_key: Buffer | null }[]>(
    'SELECT job_key_ref, sealed_old_key, sealed_new_key FROM key_rotation_jobs WHERE id = ?', [jobId]);
  const r = rows[0];
  if (!r?.job_key_ref || !r.sealed_old_key || !r.sealed_new_key) return null;
  return { jobKeyRef: r.job_key_ref, sealedOld: r.sealed_old_key, sealedNew: r.sealed_new_key };
}

/** Forgets the sealed keys and the job key's handle (the caller destroys the key in the KMS). */
export async function forgetSealedKeys(tx: EntityManager, jobId: string): Promise<void> {
  await tx.execute('UPDATE key_rotation_jobs SET job_key_ref = NULL, sealed_old_key = NULL, sealed_new_key = NULL WHERE id = ?', [jobId]);
}

export type VersionToReencrypt = { secret_id: string; version: number; path: string; ciphertext: Buffer; wrapped_key: Buffer; key_ref: string };

/** The next versions of the vault still under the customer key `oldFingerprint`, locked for this batch. */
export function versionsToReencrypt(tx: EntityManager, vaultId: string, oldFingerprint: string, limit: number): Promise<VersionToReencrypt[]> {
  return tx.execute<VersionToReencrypt[]>(
    `SELECT sv.secret_id, sv.version, s.path, sv.ciphertext, sv.wrapped_key, sv.key_ref
     FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id
     WHERE s.vault_id = ? AND sv.cmek_fingerprint = ?
     ORDER BY sv.secret_id, sv.version LIMIT ? FOR UPDATE OF sv`, [vaultId, oldFingerprint, limit]);
}

/** The new ciphertexts (same data key, fresh IV) and the new key's fingerprint, per version. */
export async function storeReencrypted(tx: EntityManager, rows: { secretId: string; version: number; ciphertext: Buffer }[], newFingerprint: string): Promise<void> {
  for (const r of rows) {
    await tx.execute('UPDATE secret_versions SET ciphertext = ?, cmek_fingerprint = ? WHERE secret_id = ? AND version = ?', [r.ciphertext, newFingerprint, r.secretId, r.version]);
  }
}
