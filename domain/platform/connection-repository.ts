// The platform_connections table (migration 0055) and the user lookups the upsert needs. Commands
// (platform-users.ts) decide; this file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query, withOrmErrors } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

export type ConnectionRow = Selectable<Database['platform_connections']>;
export type ConnectionStatus = 'connected' | 'claimed' | 'disconnected';

/** A connection with its user's e-mail. */
export type ConnectionWithUser = ConnectionRow & { email: string };

const withUser = (em: EntityManager) => query(em).selectFrom('platform_connections as c').innerJoin('users as u', 'u.id', 'c.user_id')
  .selectAll('c').select('u.email');

export async function connectionBySubject(em: EntityManager, appId: string, subject: string): Promise<ConnectionWithUser | null> {
  return (await withUser(em).where('c.platform_app_id', '=', appId).where('c.external_subject', '=', subject).executeTakeFirst()) ?? null;
}

export async function connectionOfUser(em: EntityManager, appId: string, userId: string): Promise<ConnectionWithUser | null> {
  return (await withUser(em).where('c.platform_app_id', '=', appId).where('c.user_id', '=', userId).executeTakeFirst()) ?? null;
}

/** Any account with this e-mail (whatever its case and status): its id and e-mail, or null. */
export async function userByEmail(em: EntityManager, email: string): Promise<{ id: string; email: string } | null> {
  return (await query(em).selectFrom('users').select(['id', 'email'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase())).executeTakeFirst()) ?? null;
}

export function insertConnection(tx: EntityManager, c: { id: string; appId: string; userId: string; externalSubject: string | null }): Promise<ConnectionRow> {
  return withOrmErrors(tx, query(tx).insertInto('platform_connections')
    .values({ id: c.id, platform_app_id: c.appId, user_id: c.userId, external_subject: c.externalSubject }).returningAll().executeTakeFirstOrThrow());
}

/** Records the subject of a connection made by e-mail, the first time a token names it. */
export async function setConnectionSubject(tx: EntityManager, connectionId: string, subject: string): Promise<void> {
  await withOrmErrors(tx, query(tx).updateTable('platform_connections').set({ external_subject: subject })
    .where('id', '=', connectionId).where('external_subject', 'is', null).execute());
}

/** Connections of the app that are not disconnected (max_connected_users counts these). */
export async function countLiveConnections(em: EntityManager, appId: string): Promise<number> {
  const row = await query(em).selectFrom('platform_connections').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('platform_app_id', '=', appId).where('status', '<>', 'disconnected').executeTakeFirstOrThrow();
  return row.n;
}

/** Live connections per app, for the apps' `connected_users`. */
export async function liveConnectionCounts(em: EntityManager, appIds: string[]): Promise<Map<string, number>> {
  if (appIds.length === 0) return new Map();
  const rows = await query(em).selectFrom('platform_connections').select(['platform_app_id', sql<number>`count(*)::int`.as('n')])
    .where('platform_app_id', 'in', appIds).where('status', '<>', 'disconnected').groupBy('platform_app_id').execute();
  return new Map(rows.map((r) => [r.platform_app_id, r.n]));
}

/** The app's connections with their users' e-mails, oldest first. */
export function listAppConnections(em: EntityManager, appId: string): Promise<ConnectionWithUser[]> {
  return withUser(em).where('c.platform_app_id', '=', appId).orderBy('c.created_at').orderBy('c.id').execute();
}

/** A user's connections that are not disconnected, with their apps' names and slugs, oldest first. */
export function listUserConnections(em: EntityManager, userId: string): Promise<(ConnectionRow & { app_name: string; app_slug: string; app_org_id: string })[]> {
  return query(em).selectFrom('platform_connections as c').innerJoin('platform_apps as a', 'a.id', 'c.platform_app_id')
    .selectAll('c').select(['a.name as app_name', 'a.slug as app_slug', 'a.org_id as app_org_id'])
    .where('c.user_id', '=', userId).where('c.status', '<>', 'disconnected').orderBy('c.created_at').orderBy('c.id').execute();
}

/** connected|claimed → disconnected, for the user's own connection; the row (with its app's organization), or null. */
export async function disconnect(tx: EntityManager, userId: string, connectionId: string): Promise<(ConnectionRow & { app_org_id: string }) | null> {
  const row = await query(tx).updateTable('platform_connections').set({ status: 'disconnected', disconnected_at: sql`now()` })
    .where('id', '=', connectionId).where('user_id', '=', userId).where('status', '<>', 'disconnected').returningAll().executeTakeFirst();
  if (!row) return null;
  const app = await query(tx).selectFrom('platform_apps').select('org_id').where('id', '=', row.platform_app_id).executeTakeFirstOrThrow();
  return { ...row, app_org_id: app.org_id };
}

/** An active app by its slug (any case), or null. */
export async function activeAppBySlug(em: EntityManager, slug: string): Promise<{ id: string; org_id: string; name: string; slug: string; max_connected_users: number | null } | null> {
  return (await query(em).selectFrom('platform_apps').select(['id', 'org_id', 'name', 'slug', 'max_connected_users'])
    .where((eb) => eb(eb.fn('lower', ['slug']), '=', slug.toLowerCase())).where('is_active', '=', true).executeTakeFirst()) ?? null;
}

/**
 * The user's consent: a new connection, or their disconnected one live again. Null when a live one
 * exists already (nothing to do).
 */
export async function connectByConsent(tx: EntityManager, appId: string, userId: string, id: string): Promise<ConnectionRow | null> {
  const row = await query(tx).insertInto('platform_connections').values({ id, platform_app_id: appId, user_id: userId })
    .onConflict((oc) => oc.columns(['platform_app_id', 'user_id']).doUpdateSet({ status: 'connected', disconnected_at: null, created_at: sql`now()` })
      .where('platform_connections.status', '=', 'disconnected'))
    .returningAll().executeTakeFirst();
  return row ?? null;
}

/** Counts for GET /v1/platform/apps/{id}/stats (reference PlatformAppStatsResponse). */
export type AppStats = { total_connections: number; active_connections: number; claimed_connections: number; total_bootstraps: number; total_grants: number };

export async function appStats(em: EntityManager, appId: string): Promise<AppStats> {
  return query(em).selectNoFrom((eb) => [
    eb.selectFrom('platform_connections').select(sql<number>`count(*)::int`.as('n')).where('platform_app_id', '=', appId).as('total_connections'),
    eb.selectFrom('platform_connections').select(sql<number>`count(*)::int`.as('n')).where('platform_app_id', '=', appId).where('status', '<>', 'disconnected').as('active_connections'),
    eb.selectFrom('platform_connections').select(sql<number>`count(*)::int`.as('n')).where('platform_app_id', '=', appId).where('status', '=', 'claimed').as('claimed_connections'),
    eb.selectFrom('platform_bootstraps').select(sql<number>`count(*)::int`.as('n')).where('platform_app_id', '=', appId).as('total_bootstraps'),
    eb.selectFrom('platform_grants as g').innerJoin('platform_connections as c', 'c.id', 'g.connection_id')
      .select(sql<number>`count(*)::int`.as('n')).where('c.platform_app_id', '=', appId).as('total_grants'),
  ]).executeTakeFirstOrThrow() as Promise<AppStats>;
}
