// The platform_grants table (migration 0056) and the policy rows that enforce each grant: one per
// vault and path, of the principal ('platform', connection id), pointing back at the grant.
// Revoking deletes those rows, which moves each vault's policy_version (no cached read survives).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

export type GrantRow = Selectable<Database['platform_grants']>;

/** The user's own live connection (connected or claimed), locked; with the app's organization. */
export async function lockUserConnection(tx: EntityManager, userId: string, connectionId: string): Promise<{ id: string; platform_app_id: string; app_org_id: string } | null> {
  return (await query(tx).selectFrom('platform_connections as c').innerJoin('platform_apps as a', 'a.id', 'c.platform_app_id')
    .select(['c.id', 'c.platform_app_id', 'a.org_id as app_org_id'])
    .where('c.id', '=', connectionId).where('c.user_id', '=', userId).where('c.status', '<>', 'disconnected').forUpdate('c').executeTakeFirst()) ?? null;
}

/** Live standard vaults of the organization among these ids, with their creators. */
export async function vaultsForGrant(em: EntityManager, orgId: string, ids: string[]): Promise<{ id: string; created_by: string; created_by_type: string }[]> {
  if (ids.length === 0) return [];
  return query(em).selectFrom('vaults').select(['id', 'created_by', 'created_by_type'])
    .where('org_id', '=', orgId).where('id', 'in', ids).where('kind', '=', 'standard').where('deleted_at', 'is', null).execute();
}

export async function insertGrant(tx: EntityManager, g: {
  id: string; connectionId: string; orgId: string; vaultId: string; paths: string[]; permissions: string[]; expiresAt: Date | null; userId: string;
}): Promise<GrantRow> {
  const row = await query(tx).insertInto('platform_grants').values({
    id: g.id, connection_id: g.connectionId, vault_ids: [g.vaultId], allowed_paths: g.paths, permissions: g.permissions, expires_at: g.expiresAt, created_by: g.userId,
  }).returningAll().executeTakeFirstOrThrow();
  await query(tx).insertInto('policies').values(g.paths.map((path) => ({
    id: randomUUID(), org_id: g.orgId, vault_id: g.vaultId, secret_path_pattern: path, principal_type: 'platform' as const, principal_id: g.connectionId,
    permissions: g.permissions, expires_at: g.expiresAt, created_by: g.userId, created_by_type: 'user', platform_grant_id: g.id,
  }))).execute();
  return row;
}

/** The connection's grants not revoked (expired ones included, with their expiry), oldest first. */
export function liveGrants(em: EntityManager, connectionId: string): Promise<GrantRow[]> {
  return query(em).selectFrom('platform_grants').selectAll().where('connection_id', '=', connectionId).where('revoked_at', 'is', null)
    .orderBy('created_at').orderBy('id').execute();
}

/** Revokes one grant (or, without `grantId`, all of the connection's): the rows revoked. */
export async function revokeGrants(tx: EntityManager, connectionId: string, grantId?: string): Promise<GrantRow[]> {
  let q = query(tx).updateTable('platform_grants').set({ revoked_at: sql`now()` }).where('connection_id', '=', connectionId).where('revoked_at', 'is', null);
  if (grantId !== undefined) q = q.where('id', '=', grantId);
  const rows = await q.returningAll().execute();
  if (rows.length > 0) await query(tx).deleteFrom('policies').where('platform_grant_id', 'in', rows.map((r) => r.id)).execute();
  return rows;
}

/** Every policy of the connection (its grants' and the bootstrap's): the app's reach ends with its connection. */
export async function deleteConnectionPolicies(tx: EntityManager, connectionId: string): Promise<void> {
  await query(tx).deleteFrom('policies').where('principal_type', '=', 'platform').where('principal_id', '=', connectionId).execute();
}

/** A live connection of this app, as the principal a plt_ key with X-Platform-Connection acts as: its user's organization. */
export async function connectionOfApp(em: EntityManager, appId: string, connectionId: string): Promise<{ id: string; org_id: string } | null> {
  return (await query(em).selectFrom('platform_connections as c').innerJoin('users as u', 'u.id', 'c.user_id').select(['c.id', 'u.org_id'])
    .where('c.id', '=', connectionId).where('c.platform_app_id', '=', appId).where('c.status', '<>', 'disconnected').where('u.org_id', 'is not', null)
    .$narrowType<{ org_id: string }>().executeTakeFirst()) ?? null;
}
