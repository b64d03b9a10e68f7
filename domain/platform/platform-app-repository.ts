// The platform_apps table (migration 0053): every statement the platform API's app commands and the
// `plt_` key lookup need. Commands (platform-app-commands.ts) decide; this file only reads and
// writes. Rows leave here without their key digests.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query, withOrmErrors } from '../../db/query.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import type { Database } from '../../db/entities/index.ts';
import { notifySql } from '../cache/invalidation-bus.ts';
import { isUuid } from '../ids.ts';

const COLUMNS = [
  'id', 'org_id', 'name', 'slug', 'description', 'logo_url', 'oidc_jwks_url', 'oidc_issuer', 'oidc_audience', 'redirect_uris', 'webhook_url',
  'is_active', 'billing_model', 'auth_mode', 'max_connected_users', 'api_key_prefix', 'api_key_expires_at', 'api_key_rotated_at',
  'created_by', 'created_at', 'updated_at',
] as const;

/** An app without its key digests. */
export type PlatformAppRow = Pick<Selectable<Database['platform_apps']>, (typeof COLUMNS)[number]>;

export type BillingModel = 'platform_pays' | 'user_pays' | 'hybrid';
export type AuthMode = 'silent' | 'user_signin' | 'configurable';

/** The settings an app is registered with or a PATCH changes (undefined: unchanged). */
export type PlatformAppSettings = {
  name?: string; description?: string; logo_url?: string | null; oidc_jwks_url?: string | null; oidc_issuer?: string | null;
  oidc_audience?: string | null; redirect_uris?: string[]; webhook_url?: string | null; billing_model?: BillingModel; auth_mode?: AuthMode;
  max_connected_users?: number | null; is_active?: boolean; api_key_expires_at?: Date | null;
};

export type NewPlatformApp = PlatformAppSettings & {
  id: string; orgId: string; name: string; slug: string; keyPrefix: string; keyDigest: string; createdBy: string;
};

export function insertPlatformApp(tx: EntityManager, a: NewPlatformApp): Promise<PlatformAppRow> {
  return withOrmErrors(tx, query(tx).insertInto('platform_apps').values({
    id: a.id, org_id: a.orgId, name: a.name, slug: a.slug, description: a.description ?? '', logo_url: a.logo_url ?? null,
    oidc_jwks_url: a.oidc_jwks_url ?? null, oidc_issuer: a.oidc_issuer ?? null, oidc_audience: a.oidc_audience ?? null,
    redirect_uris: a.redirect_uris ?? [], webhook_url: a.webhook_url ?? null, billing_model: a.billing_model ?? 'platform_pays',
    auth_mode: a.auth_mode ?? 'silent', max_connected_users: a.max_connected_users ?? null, api_key_prefix: a.keyPrefix,
    api_key_digest: a.keyDigest, api_key_expires_at: a.api_key_expires_at ?? null, created_by: a.createdBy,
  }).returning(COLUMNS).executeTakeFirstOrThrow());
}

/** Locks the app's row until the transaction ends (caps counted per app). */
export async function lockPlatformApp(tx: EntityManager, appId: string): Promise<void> {
  await query(tx).selectFrom('platform_apps').select('id').where('id', '=', appId).forUpdate().execute();
}

export async function countPlatformApps(tx: EntityManager, orgId: string): Promise<number> {
  const row = await query(tx).selectFrom('platform_apps').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('org_id', '=', orgId).executeTakeFirstOrThrow();
  return row.n;
}

/** The organization's apps, oldest first. */
export function listPlatformApps(em: EntityManager, orgId: string): Promise<PlatformAppRow[]> {
  return query(em).selectFrom('platform_apps').select(COLUMNS).where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
}

/** One app of the organization; null when missing, in another organization or not an id. */
export async function findPlatformApp(em: EntityManager, orgId: string, appId: string): Promise<PlatformAppRow | null> {
  if (!isUuid(appId)) return null;
  return (await query(em).selectFrom('platform_apps').select(COLUMNS).where('id', '=', appId).where('org_id', '=', orgId).executeTakeFirst()) ?? null;
}

/** Writes the given settings; null when the organization has no such app. */
export async function updatePlatformApp(tx: EntityManager, orgId: string, appId: string, c: PlatformAppSettings): Promise<PlatformAppRow | null> {
  if (!isUuid(appId)) return null;
  const set: Record<string, unknown> = { updated_at: sql`now()` };
  // A fixed list of columns: nothing else from the input reaches SQL.
  for (const k of ['name', 'description', 'logo_url', 'oidc_jwks_url', 'oidc_issuer', 'oidc_audience', 'redirect_uris', 'webhook_url',
    'billing_model', 'auth_mode', 'max_connected_users', 'is_active', 'api_key_expires_at'] as const) {
    if (c[k] !== undefined) set[k] = c[k];
  }
  const row = await query(tx).updateTable('platform_apps').set(set).where('id', '=', appId).where('org_id', '=', orgId)
    .returning(COLUMNS).executeTakeFirst();
  return row ?? null;
}

/**
 * A new key for the app; the current one stays valid until `previousUntil` (null: dead at once).
 * A key that was still overlapping from an earlier rotation is dropped: at most two keys live.
 */
export async function rotatePlatformKey(tx: EntityManager, orgId: string, appId: string,
  k: { prefix: string; digest: string; expiresAt: Date | null; previousUntil: Date | null }): Promise<PlatformAppRow | null> {
  if (!isUuid(appId)) return null;
  const row = await query(tx).updateTable('platform_apps').set({
    previous_key_digest: k.previousUntil === null ? null : sql<string>`api_key_digest`,
    // Never past the old key's own expiry.
    previous_key_expires_at: k.previousUntil === null ? null : sql<Date>`LEAST(${k.previousUntil.toISOString()}::timestamptz, api_key_expires_at)`,
    api_key_prefix: k.prefix, api_key_digest: k.digest, api_key_expires_at: k.expiresAt,
    api_key_rotated_at: sql`now()`, updated_at: sql`now()`,
  }).where('id', '=', appId).where('org_id', '=', orgId).returning(COLUMNS).executeTakeFirst();
  return row ?? null;
}

export async function deletePlatformApp(tx: EntityManager, orgId: string, appId: string): Promise<boolean> {
  if (!isUuid(appId)) return false;
  const r = await query(tx).deleteFrom('platform_apps').where('id', '=', appId).where('org_id', '=', orgId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The app a `plt_` key digest opens, as the key lookup caches it. */
export type PlatformKeyOwner = { id: string; org_id: string; is_active: boolean; expires_at: Date | null };

/** The app whose current key, or whose previous key within its overlap, has this digest. */
export function appByKeyDigest(hot: HotReads, digest: string): Promise<PlatformKeyOwner | undefined> {
  return hot.one<PlatformKeyOwner>('platform-app-by-key-digest',
    `SELECT id, org_id, is_active, api_key_expires_at AS expires_at FROM platform_apps WHERE api_key_digest = $1
     UNION ALL
     SELECT id, org_id, is_active, previous_key_expires_at AS expires_at FROM platform_apps
      WHERE previous_key_digest = $1 AND previous_key_expires_at > now()
     LIMIT 1`, [digest]);
}

/** Tells every replica to drop its cached keys of this app, when the transaction commits (pg_notify: no ORM form). */
export async function announcePlatformKeysChanged(tx: EntityManager, appId: string): Promise<void> {
  await tx.execute(notifySql, [JSON.stringify({ kind: 'platform_keys_changed', appId })]);
}
