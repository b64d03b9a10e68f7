// The statements of account deletion (account-deletion.ts orchestrates): what a deleting account
// and, when it was the only member, its organization hold, removed in bounded batches. Every
// statement is safe to repeat: a retried batch deletes what is left.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

/** The user's row, locked until the transaction ends (one batch at a time per account). */
export function lockUserForDeletion(tx: EntityManager, userId: string): Promise<Pick<Selectable<Database['users']>, 'org_id' | 'status'> | undefined> {
  return query(tx).selectFrom('users').select(['org_id', 'status']).where('id', '=', userId).forUpdate().executeTakeFirst();
}

/** How many other accounts (any status) the organization has. */
export async function otherAccountCount(tx: EntityManager, orgId: string, userId: string): Promise<number> {
  const row = await query(tx).selectFrom('users').select(sql<number>`count(*)::int`.as('n'))
    .where('org_id', '=', orgId).where('id', '<>', userId).executeTakeFirstOrThrow();
  return row.n;
}

/** Deletes up to `limit` of the organization's audit events; how many went. */
export async function deleteAuditEventsBatch(tx: EntityManager, orgId: string, limit: number): Promise<number> {
  const rows = await query(tx).deleteFrom('audit_events')
    .where('id', 'in', (eb) => eb.selectFrom('audit_events').select('id').where('org_id', '=', orgId).limit(limit))
    .returning('id').execute();
  return rows.length;
}

/** Deletes up to `limit` of the organization's outbox events; how many went. */
export async function deleteOutboxBatch(tx: EntityManager, orgId: string, limit: number): Promise<number> {
  const rows = await query(tx).deleteFrom('event_outbox')
    .where('id', 'in', (eb) => eb.selectFrom('event_outbox').select('id').where('org_id', '=', orgId).limit(limit))
    .returning('id').execute();
  return rows.length;
}

/** Deletes the organization's key rotation jobs; the KMS keys they still held. */
export async function deleteKeyRotationJobs(tx: EntityManager, orgId: string): Promise<string[]> {
  const jobs = await query(tx).deleteFrom('key_rotation_jobs').where('org_id', '=', orgId)
    .returning(['old_key_refs', 'new_key_ref', 'job_key_ref']).execute();
  return jobs.flatMap((j) => [...j.old_key_refs, j.new_key_ref, j.job_key_ref]).filter((r): r is string => r !== null);
}

/**
 * Deletes up to `limit` of the organization's vaults, each with its secrets and versions (ON DELETE
 * CASCADE); the vaults deleted, with their key references.
 */
export function deleteVaultsBatch(tx: EntityManager, orgId: string, limit: number): Promise<{ id: string; key_ref: string }[]> {
  return query(tx).deleteFrom('vaults')
    .where('id', 'in', (eb) => eb.selectFrom('vaults').select('id').where('org_id', '=', orgId).limit(limit))
    .returning(['id', 'key_ref']).execute();
}

/** The organization's last rows once its vaults are gone: its audit chain head, IP rules and invitations. */
export async function deleteOrganizationLeftovers(tx: EntityManager, orgId: string): Promise<void> {
  const q = query(tx);
  await q.deleteFrom('audit_chain_heads').where('chain_key', '=', orgId).execute();
  await q.deleteFrom('ip_rules').where('org_id', '=', orgId).execute();
  await q.deleteFrom('invitations').where('org_id', '=', orgId).execute();
}

/** The account and its own credentials and pending requests. */
export async function deleteUserRecords(tx: EntityManager, userId: string): Promise<void> {
  const q = query(tx);
  await q.deleteFrom('api_keys').where('user_id', '=', userId).execute();
  await q.deleteFrom('passkeys').where('user_id', '=', userId).execute();
  await q.deleteFrom('password_resets').where('user_id', '=', userId).execute();
  await q.deleteFrom('email_changes').where('user_id', '=', userId).execute();
  await q.deleteFrom('users').where('id', '=', userId).execute();
}

export async function deleteOrganization(tx: EntityManager, orgId: string): Promise<void> {
  await query(tx).deleteFrom('organizations').where('id', '=', orgId).execute();
}

/** Accounts marked `deleting` more than `olderThanSeconds` ago (their workflow may not have run), at most 100. */
export async function accountsAwaitingDeletion(em: EntityManager, olderThanSeconds: number): Promise<string[]> {
  const rows = await query(em).selectFrom('users').select('id')
    .where('status', '=', 'deleting').where('updated_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
    .limit(100).execute();
  return rows.map((r) => r.id);
}
