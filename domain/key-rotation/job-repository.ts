// The key_rotation_jobs table and the secret versions a vault key rotation re-wraps. Commands and
// activities decide; this file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { conflict } from '../errors.ts';

export type JobStatus = 'pending' | 'running' | 'completed' | 'failed';

export type RotationJobRow = {
  id: string; org_id: string; vault_id: string; kind: 'vault_key' | 'cmek'; status: JobStatus; new_key_ref: string | null;
  old_key_refs: string[]; total_secrets: number; processed: number; error: string | null;
  /** cmek jobs: the customer keys' fingerprints (never the keys; those are in cmek-job-repository.ts). */
  old_fingerprint: string | null; new_fingerprint: string | null;
  created_at: Date; started_at: Date | null; completed_at: Date | null;
};

const COLUMNS = 'id, org_id, vault_id, kind, status, new_key_ref, old_key_refs, total_secrets, processed, error, old_fingerprint, new_fingerprint, created_at, started_at, completed_at';

/**
 * Opens a vault key rotation: the vault's key becomes `newKeyRef` (new writes use it at once), the
 * job records every other key its versions use (retired at the end) and how many versions to do.
 * A second open job on the vault is a 409.
 */
export async function openVaultKeyJob(tx: EntityManager, j: { id: string; orgId: string; vaultId: string; newKeyRef: string; createdBy: string }): Promise<RotationJobRow> {
  const old = await tx.execute<{ key_ref: string }[]>('SELECT key_ref FROM vaults WHERE id = ? FOR UPDATE', [j.vaultId]);
  try {
    await tx.execute(
      `INSERT INTO key_rotation_jobs (id, org_id, vault_id, kind, new_key_ref, old_key_refs, total_secrets, created_by)
       SELECT ?, ?, ?, 'vault_key', ?,
         ARRAY(SELECT DISTINCT r FROM (SELECT sv.key_ref AS r FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id WHERE s.vault_id = ?
                                       UNION SELECT ?::text) refs WHERE r <> ?),
         (SELECT count(*) FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id WHERE s.vault_id = ?), ?`,
      [j.id, j.orgId, j.vaultId, j.newKeyRef, j.vaultId, old[0]!.key_ref, j.newKeyRef, j.vaultId, j.createdBy]);
  } catch (e) {
    if (e instanceof UniqueConstraintViolationException) throw conflict('A key rotation of this vault is already running; wait for it to finish');
    throw e;
  }
  await tx.execute('UPDATE vaults SET key_ref = ? WHERE id = ?', [j.newKeyRef, j.vaultId]);
  return (await loadJob(tx, j.id))!;
}

export async function loadJob(em: EntityManager, jobId: string): Promise<RotationJobRow | null> {
  const rows = await em.execute<RotationJobRow[]>(`SELECT ${COLUMNS} FROM key_rotation_jobs WHERE id = ?`, [jobId]);
  return rows[0] ?? null;
}

/**
 * The job, locked for a transaction that writes it, after its vault's row (FOR KEY SHARE).
 * Opening a job locks the vault FOR UPDATE and then adds to the one-open-job unique index; any
 * write of a job row adds to that index too and so may wait on the opener. Taking the vault first
 * on both sides keeps one lock order: without it a second rotation asked for while a batch of the
 * first was committing deadlocked (each waited on the other's index entry).
 */
export async function lockJob(tx: EntityManager, jobId: string): Promise<RotationJobRow | null> {
  const vault = await tx.execute<{ vault_id: string }[]>('SELECT vault_id FROM key_rotation_jobs WHERE id = ?', [jobId]);
  if (!vault[0]) return null;
  await tx.execute('SELECT 1 FROM vaults WHERE id = ? FOR KEY SHARE', [vault[0].vault_id]);
  const rows = await tx.execute<RotationJobRow[]>(`SELECT ${COLUMNS} FROM key_rotation_jobs WHERE id = ? FOR UPDATE`, [jobId]);
  return rows[0] ?? null;
}

export async function loadVaultJob(em: EntityManager, vaultId: string, jobId: string, kind: RotationJobRow['kind']): Promise<RotationJobRow | null> {
  const rows = await em.execute<RotationJobRow[]>(`SELECT ${COLUMNS} FROM key_rotation_jobs WHERE id = ? AND vault_id = ? AND kind = ?`, [jobId, vaultId, kind]);
  return rows[0] ?? null;
}

/** Whether the vault was deleted (its keys must then all be destroyed, not rotated). */
export async function vaultDeleted(em: EntityManager, vaultId: string): Promise<boolean> {
  const rows = await em.execute<{ deleted: boolean }[]>('SELECT deleted_at IS NOT NULL AS deleted FROM vaults WHERE id = ?', [vaultId]);
  return rows[0]?.deleted ?? true;
}

export type VersionToRewrap = { secret_id: string; version: number; path: string; wrapped_key: Buffer; key_ref: string };

/** The next versions of the vault not yet under `newKeyRef`, locked for this batch's transaction. */
export function versionsToRewrap(tx: EntityManager, vaultId: string, newKeyRef: string, limit: number): Promise<VersionToRewrap[]> {
  return tx.execute<VersionToRewrap[]>(
    `SELECT sv.secret_id, sv.version, s.path, sv.wrapped_key, sv.key_ref
     FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id
     WHERE s.vault_id = ? AND sv.key_ref <> ?
     ORDER BY sv.secret_id, sv.version LIMIT ? FOR UPDATE OF sv`, [vaultId, newKeyRef, limit]);
}

export async function storeRewrapped(tx: EntityManager, rows: { secretId: string; version: number; wrappedKey: Buffer }[], newKeyRef: string): Promise<void> {
  for (const r of rows) {
    await tx.execute('UPDATE secret_versions SET wrapped_key = ?, key_ref = ? WHERE secret_id = ? AND version = ?', [r.wrappedKey, newKeyRef, r.secretId, r.version]);
  }
}

export async function markRunning(tx: EntityManager, jobId: string): Promise<void> {
  await tx.execute("UPDATE key_rotation_jobs SET status = 'running', started_at = coalesce(started_at, now()) WHERE id = ? AND status = 'pending'", [jobId]);
}

/** Counts a batch; `processed` never passes the total (versions written during the job add to both). */
export async function countProcessed(tx: EntityManager, jobId: string, n: number): Promise<void> {
  await tx.execute('UPDATE key_rotation_jobs SET processed = processed + ?, total_secrets = greatest(total_secrets, processed + ?) WHERE id = ?', [n, n, jobId]);
}

export async function markCompleted(tx: EntityManager, jobId: string): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    // The retired keys' handles go too: for the local backend a handle is the sealed key itself.
    "UPDATE key_rotation_jobs SET status = 'completed', completed_at = now(), old_key_refs = '{}' WHERE id = ? AND status IN ('pending', 'running') RETURNING id", [jobId]);
  return rows.length > 0;
}

/** In a transaction that holds the job (lockJob). */
export async function markFailed(tx: EntityManager, jobId: string, error: string): Promise<void> {
  await tx.execute("UPDATE key_rotation_jobs SET status = 'failed', error = ?, completed_at = now() WHERE id = ? AND status IN ('pending', 'running')", [error.slice(0, 1000), jobId]);
}

/** Drops the job's key handles (the vault is gone and so are its keys). */
export async function forgetKeyRefs(tx: EntityManager, jobId: string): Promise<void> {
  await tx.execute("UPDATE key_rotation_jobs SET old_key_refs = '{}', new_key_ref = NULL WHERE id = ?", [jobId]);
}

/** Open jobs created more than `olderThanSeconds` ago: the sweeper starts their workflows (a no-op if running). */
export async function openJobsOlderThan(em: EntityManager, olderThanSeconds: number): Promise<{ id: string; kind: RotationJobRow['kind'] }[]> {
  return em.execute<{ id: string; kind: RotationJobRow['kind'] }[]>(
    `SELECT id, kind FROM key_rotation_jobs WHERE status IN ('pending', 'running') AND created_at < now() - make_interval(secs => ?) ORDER BY created_at LIMIT 100`,
    [olderThanSeconds]);
}
