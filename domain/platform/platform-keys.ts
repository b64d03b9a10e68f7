// Platform app keys (`plt_`, spec §5 rule 4): shown once, stored as an HMAC digest, resolved on
// every platform request from an in-memory cache that every replica drops when the app's keys
// change (rotation, deactivation, deletion: LISTEN/NOTIFY), as personal keys are (auth/api-keys.ts).
import type { KeyObject } from 'node:crypto';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import type { InvalidationBus } from '../cache/invalidation-bus.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import type { PlatformCaller } from '../auth/principal.ts';
import { appByKeyDigest } from './platform-app-repository.ts';
import { DigestCache } from '../cache/digest-cache.ts';

export const PLATFORM_KEY_PREFIX = 'plt_';
const CACHE_TTL_MS = 60_000;

type Resolved = { appId: string; orgId: string; active: boolean; expiresAt: number | null };

export class PlatformKeyService {
  private readonly cache = new DigestCache<Resolved>(CACHE_TTL_MS);
  private readonly pepper: KeyObject;
  private readonly db: HotReads;

  constructor(pepper: KeyObject, db: HotReads, bus: InvalidationBus) {
    this.pepper = pepper;
    this.db = db;
    bus.onMessage((m) => { if (m.kind === 'platform_keys_changed') this.forgetApp(m.appId); });
    bus.onReconnect(async () => { this.cache.clear(); });
  }

  /** A new key: the raw key (shown once), the prefix kept in clear, the digest stored. */
  newKey(): { apiKey: string; prefix: string; digest: string } {
    const apiKey = newOpaqueToken(PLATFORM_KEY_PREFIX);
    return { apiKey, prefix: apiKey.slice(0, 12), digest: digestToken(this.pepper, apiKey) };
  }

  /** Drops this replica's cached keys of the app (the others hear it from announcePlatformKeysChanged). */
  forgetApp(appId: string): void {
    this.cache.forget((r) => r.appId === appId);
  }

  /** The app as a principal, or null when the key is unknown, expired, past its overlap, or the app is inactive. */
  async resolve(rawKey: string): Promise<PlatformCaller | null> {
    if (!rawKey.startsWith(PLATFORM_KEY_PREFIX) || rawKey.length > 128) return null;
    const digest = digestToken(this.pepper, rawKey);
    const r = await this.cache.get(digest, async () => {
      const row = await appByKeyDigest(this.db, digest);
      return row ? { appId: row.id, orgId: row.org_id, active: row.is_active, expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null } : null;
    });
    if (!r || !r.active || (r.expiresAt !== null && r.expiresAt <= Date.now())) return null;
    return { type: 'platform', id: r.appId, orgId: r.orgId, via: 'api_key', app: true };
  }
}
