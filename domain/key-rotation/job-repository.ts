// The key_rotation_jobs table and the secret versions a vault key rotation re-wraps. Commands and
// activities decide; this file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { sql, type Selectable } from 'kysely';
import { query, withOrmErrors } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { conflict } from '../errors.ts';

type Jobs = Selectable<Database['key_rotation_jobs']>;

export type JobStatus = Jobs['status'];

// Every column but the CMEK job's key handle and sealed keys (those are in cmek-job-repository.ts).
const COLUMNS = ['id', 'org_id', 'vault_id', 'kind', 'status', 'new_key_ref', 'old_key_refs', 'total_secrets', 'processed', 'error',
  'old_fingerprint', 'new_fingerprint', 'created_at', 'started_at', 'completed_at'] as const;

/** A job; cmek jobs carry the customer keys' fingerprints (never the keys). */
export type RotationJobRow = Pick<Jobs, (typeof COLUMNS)[number]>;

/** A second open job on the vault (the one-open-job unique index): 409. */
export const rotationRunning = () => conflict('A key rotation of this vault is already running; wait for it to finish');

/**
 * Opens a vault key rotation: the vault's key becomes `newKeyRef` (new writes use it at once), the
 * job records every other key its versions use (retired at the end) and how many versions to do.
 * A second open job on the vault is a 409.
 */
export async function openVaultKeyJob(tx: EntityManager, j: { id: string; orgId: string; vaultId: string; newKeyRef: string; createdBy: string }): Promise<RotationJobRow> {
  const q = query(tx);
  const old = await q.selectFrom('vaults').select('key_ref').where('id', '=', j.vaultId).forUpdate().executeTakeFirstOrThrow();
  try {
    // One statement: the key references and the count are read as the job row goes in.
    await withOrmErrors(tx, q.insertInto('key_rotation_jobs').values((eb) => {
      const versions = eb.selectFrom('secret_versions as sv').innerJoin('secrets as s', 's.id', 'sv.secret_id').where('s.vault_id', '=', j.vaultId);
      const refs = eb.selectFrom(versions.select('sv.key_ref as r').union(q.selectNoFrom((e) => e.cast<string>(e.val(old.key_ref), 'text').as('r'))).as('refs'))
        .select('refs.r').distinct().where('refs.r', '<>', j.newKeyRef);
      return {
        id: j.id, org_id: j.orgId, vault_id: j.vaultId, kind: 'vault_key', new_key_ref: j.newKeyRef,
        // ARRAY(subquery): Kysely has no array constructor over a query.
        old_key_refs: sql<string[]>`ARRAY(${refs})`,
        total_secrets: versions.select((e) => e.fn.countAll<number>().as('n')),
        created_by: j.createdBy,
      };
    }).execute());
  } catch (e) {
    if (e instanceof UniqueConstraintViolationException) throw rotationRunning();
    throw e;
  }
  await q.updateTable('vaults').set({ key_ref: j.newKeyRef }).where('id', '=', j.vaultId).execute();
  return (await loadJob(tx, j.id))!;
}

export async function loadJob(em: EntityManager, jobId: string): Promise<RotationJobRow | null> {
  return (await query(em).selectFrom('key_rotation_jobs').select(COLUMNS).where('id', '=', jobId).executeTakeFirst()) ?? null;
}

/**
 * The job, locked for a transaction that writes it, after its vault's row (FOR KEY SHARE).
 * Opening a job locks the vault FOR UPDATE and then adds to the one-open-job unique index; any
 * write of a job row adds to that index too and so may wait on the opener. Taking the vault first
 * on both sides keeps one lock order: without it a second rotation asked for while a batch of the
 * first was committing deadlocked (each waited on the other's index entry).
 */
export async function lockJob(tx: EntityManager, jobId: string): Promise<RotationJobRow | null> {
  const q = query(tx);
  const vault = await q.selectFrom('key_rotation_jobs').select('vault_id').where('id', '=', jobId).executeTakeFirst();
  if (!vault) return null;
  await q.selectFrom('vaults').select(sql<number>`1`.as('one')).where('id', '=', vault.vault_id).forKeyShare().execute();
  return (await q.selectFrom('key_rotation_jobs').select(COLUMNS).where('id', '=', jobId).forUpdate().executeTakeFirst()) ?? null;
}

export async function loadVaultJob(em: EntityManager, vaultId: string, jobId: string, kind: RotationJobRow['kind']): Promise<RotationJobRow | null> {
  return (await query(em).selectFrom('key_rotation_jobs').select(COLUMNS)
    .where('id', '=', jobId).where('vault_id', '=', vaultId).where('kind', '=', kind).executeTakeFirst()) ?? null;
}

/** Whether the vault was deleted (its keys must then all be destroyed, not rotated). */
export async function vaultDeleted(em: EntityManager, vaultId: string): Promise<boolean> {
  const row = await query(em).selectFrom('vaults').select((eb) => eb('deleted_at', 'is not', null).as('deleted')).where('id', '=', vaultId).executeTakeFirst();
  return row === undefined || row.deleted === true;
}

export type VersionToRewrap = { secret_id: string; version: number; path: string; wrapped_key: Buffer; key_ref: string };

/** The next versions of the vault not yet under `newKeyRef`, locked for this batch's transaction. */
export async function versionsToRewrap(tx: EntityManager, vaultId: string, newKeyRef: string, limit: number): Promise<VersionToRewrap[]> {
  return await query(tx).selectFrom('secret_versions as sv').innerJoin('secrets as s', 's.id', 'sv.secret_id')
    .select(['sv.secret_id', 'sv.version', 's.path', 'sv.wrapped_key', 'sv.key_ref'])
    .where('s.vault_id', '=', vaultId).where('sv.key_ref', '<>', newKeyRef)
    .orderBy('sv.secret_id').orderBy('sv.version').limit(limit).forUpdate('sv').execute() as VersionToRewrap[];
}

export async function storeRewrapped(tx: EntityManager, rows: { secretId: string; version: number; wrappedKey: Buffer }[], newKeyRef: string): Promise<void> {
  for (const r of rows) {
    await query(tx).updateTable('secret_versions').set({ wrapped_key: r.wrappedKey, key_ref: newKeyRef })
      .where('secret_id', '=', r.secretId).where('version', '=', r.version).execute();
  }
}

export async function markRunning(tx: EntityManager, jobId: string): Promise<void> {
  await query(tx).updateTable('key_rotation_jobs').set({ status: 'running', started_at: sql`coalesce(started_at, now())` })
    .where('id', '=', jobId).where('status', '=', 'pending').execute();
}

/** Counts a batch; `processed` never passes the total (versions written during the job add to both). */
export async function countProcessed(tx: EntityManager, jobId: string, n: number): Promise<void> {
  await query(tx).updateTable('key_rotation_jobs')
    .set((eb) => ({ processed: eb('processed', '+', n), total_secrets: eb.fn('greatest', ['total_secrets', eb('processed', '+', n)]) }))
    .where('id', '=', jobId).execute();
}

export async function markCompleted(tx: EntityManager, jobId: string): Promise<boolean> {
  const rows = await query(tx).updateTable('key_rotation_jobs')
    // The retired keys' handles go too: for the local backend a handle is the sealed key itself.
    .set({ status: 'completed', completed_at: sql`now()`, old_key_refs: [] })
    .where('id', '=', jobId).where('status', 'in', ['pending', 'running']).returning('id').execute();
  return rows.length > 0;
}

/** In a transaction that holds the job (lockJob). */
export async function markFailed(tx: EntityManager, jobId: string, error: string): Promise<void> {
  await query(tx).updateTable('key_rotation_jobs').set({ status: 'failed', error: error.slice(0, 1000), completed_at: sql`now()` })
    .where('id', '=', jobId).where('status', 'in', ['pending', 'running']).execute();
}

/** Drops the job's key handles (the vault is gone and so are its keys). */
export async function forgetKeyRefs(tx: EntityManager, jobId: string): Promise<void> {
  await query(tx).updateTable('key_rotation_jobs').set({ old_key_refs: [], new_key_ref: null }).where('id', '=', jobId).execute();
}

/** Open jobs created more than `olderThanSeconds` ago: the sweeper starts their workflows (a no-op if running). */
export async function openJobsOlderThan(em: EntityManager, olderThanSeconds: number): Promise<{ id: string; kind: RotationJobRow['kind'] }[]> {
  return query(em).selectFrom('key_rotation_jobs').select(['id', 'kind'])
    .where('status', 'in', ['pending', 'running']).where('created_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
    .orderBy('created_at').limit(100).execute();
}
