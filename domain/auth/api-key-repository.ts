// The api_keys table: every statement about personal API keys. ApiKeyService (api-keys.ts) and the
// account commands decide; this file only reads and writes. The digest lookup and the last-use
// stamp are on the request path: named statements on the hot pool.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import type { Database } from '../../db/entities/index.ts';
import { notifySql } from '../cache/invalidation-bus.ts';

/** A key as its owner sees it: never the digest. */
const API_KEY_COLUMNS = ['id', 'name', 'key_prefix', 'scopes', 'is_active', 'created_at', 'expires_at', 'last_used_at'] as const;
export type ApiKeyRow = Pick<Selectable<Database['api_keys']>, (typeof API_KEY_COLUMNS)[number]>;

export type NewApiKey = { id: string; userId: string; name: string; keyPrefix: string; keyDigest: string; scopes: string[]; expiresAt: Date | null };

/** The user's keys, newest first (revoked ones too: they show as inactive). */
export function listApiKeys(em: EntityManager, userId: string): Promise<ApiKeyRow[]> {
  return query(em).selectFrom('api_keys').select(API_KEY_COLUMNS).where('user_id', '=', userId).orderBy('created_at', 'desc').execute();
}

export async function countActiveApiKeys(em: EntityManager, userId: string): Promise<number> {
  const row = await query(em).selectFrom('api_keys').select(sql<number>`count(*)::int`.as('n'))
    .where('user_id', '=', userId).where('is_active', '=', true).executeTakeFirstOrThrow();
  return row.n;
}

export function insertApiKey(em: EntityManager, k: NewApiKey): Promise<ApiKeyRow> {
  return query(em).insertInto('api_keys')
    .values({ id: k.id, user_id: k.userId, name: k.name, key_prefix: k.keyPrefix, key_digest: k.keyDigest, scopes: k.scopes, expires_at: k.expiresAt })
    .returning(API_KEY_COLUMNS).executeTakeFirstOrThrow();
}

/** Deactivates one active key of the user; false when there is none. */
export async function deactivateApiKey(tx: EntityManager, userId: string, keyId: string): Promise<boolean> {
  const rows = await query(tx).updateTable('api_keys').set({ is_active: false })
    .where('id', '=', keyId).where('user_id', '=', userId).where('is_active', '=', true).returning('id').execute();
  return rows.length > 0;
}

/** Deactivates every key of the user (account deletion). */
export async function deactivateAllApiKeys(tx: EntityManager, userId: string): Promise<void> {
  await query(tx).updateTable('api_keys').set({ is_active: false }).where('user_id', '=', userId).execute();
}

/** Tells every replica to drop its cached keys of this user, when the transaction commits (pg_notify: no ORM form). */
export async function announceApiKeysChanged(tx: EntityManager, userId: string): Promise<void> {
  await tx.execute(notifySql, [JSON.stringify({ kind: 'api_keys_changed', userId })]);
}

/** A key's owner as the hot pool returns it (timestamptz as Date). */
export type ApiKeyOwner = Pick<Selectable<Database['api_keys']>, 'id' | 'user_id' | 'expires_at'> & Pick<Selectable<Database['users']>, 'org_id'>;

/** The active key with this digest and its active owner, or undefined. */
export function activeKeyByDigest(hot: HotReads, digest: string): Promise<ApiKeyOwner | undefined> {
  return hot.one<ApiKeyOwner>('api-key-by-digest',
    `SELECT k.id, k.user_id, u.org_id, k.expires_at FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.key_digest = $1 AND k.is_active AND u.status = 'active'`, [digest]);
}

/** Stamps the key's last use. */
export async function touchApiKey(hot: HotReads, keyId: string): Promise<void> {
  await hot.one('api-key-touch', 'UPDATE api_keys SET last_used_at = now() WHERE id = $1', [keyId]);
}
