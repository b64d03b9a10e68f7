// Personal API keys (`xck_`): shown once, stored as an HMAC digest, resolved on the hot path
// from an in-memory cache that every replica drops on revocation (LISTEN/NOTIFY).
import { randomUUID, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import type { InvalidationBus } from '../cache/invalidation-bus.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import type { Principal } from './principal.ts';
import { DigestCache } from '../cache/digest-cache.ts';
import { activeKeyByDigest, announceApiKeysChanged, deactivateApiKey, insertApiKey, touchApiKey, type ApiKeyRow } from './api-key-repository.ts';

export const USER_KEY_PREFIX = 'xck_';
const CACHE_TTL_MS = 60_000;
const LAST_USED_EVERY_MS = 60_000;

type Resolved = { keyId: string; userId: string; orgId: string | null; expiresAt: number | null };

export class ApiKeyService {
  private readonly cache = new DigestCache<Resolved>(CACHE_TTL_MS);
  private readonly lastUsedWrite = new Map<string, number>();
  private readonly pepper: KeyObject;
  private readonly db: HotReads;

  constructor(pepper: KeyObject, db: HotReads, bus: InvalidationBus) {
    this.pepper = pepper;
    this.db = db;
    bus.onMessage((m) => { if (m.kind === 'api_keys_changed') this.forgetUser(m.userId); });
    bus.onReconnect(async () => { this.cache.clear(); });
  }

  private forgetUser(userId: string): void {
    this.cache.forget((r) => r.userId === userId);
  }

  /** Stores a new key of `userId` (digest only); the raw key is returned here and never again. */
  async create(em: EntityManager, userId: string, input: { name: string; expiresAt?: Date | null; scopes?: string[] }): Promise<{ record: ApiKeyRow; apiKey: string }> {
    const apiKey = newOpaqueToken(USER_KEY_PREFIX);
    const record = await insertApiKey(em, {
      id: randomUUID(), userId, name: input.name, keyPrefix: apiKey.slice(0, 12), keyDigest: digestToken(this.pepper, apiKey),
      scopes: input.scopes ?? [], expiresAt: input.expiresAt ?? null,
    });
    return { record, apiKey };
  }

  /** Deactivates one of the user's keys and drops it from every replica's cache; false if none. */
  async revoke(tx: EntityManager, userId: string, keyId: string): Promise<boolean> {
    if (!(await deactivateApiKey(tx, userId, keyId))) return false;
    await this.announceChange(tx, userId);
    return true;
  }

  /** Drops every replica's cached keys of this user; call inside the changing transaction. */
  async announceChange(em: EntityManager, userId: string): Promise<void> {
    await announceApiKeysChanged(em, userId);
    this.forgetUser(userId);
  }

  /** The key's owner as a principal, or null when unknown, revoked, expired or orphaned. */
  async resolve(rawKey: string): Promise<(Principal & { keyId: string }) | null> {
    if (!rawKey.startsWith(USER_KEY_PREFIX) || rawKey.length > 128) return null;
    const now = Date.now();
    const digest = digestToken(this.pepper, rawKey);
    const r = await this.cache.get(digest, async () => {
      const row = await activeKeyByDigest(this.db, digest);
      return row ? { keyId: row.id, userId: row.user_id, orgId: row.org_id, expiresAt: row.expires_at ? row.expires_at.getTime() : null } : null;
    });
    if (!r || r.orgId === null || (r.expiresAt !== null && r.expiresAt <= now)) return null;
    this.touch(r.keyId, now);
    return { type: 'user', id: r.userId, orgId: r.orgId, via: 'api_key', keyId: r.keyId };
  }

  /** Records last use at most once a minute per key, off the request's critical path. */
  private touch(keyId: string, now: number): void {
    if (now - (this.lastUsedWrite.get(keyId) ?? 0) < LAST_USED_EVERY_MS) return;
    this.lastUsedWrite.set(keyId, now);
    touchApiKey(this.db, keyId).catch(() => {});
  }
}
