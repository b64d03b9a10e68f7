// What a bearer key's digest resolved to, kept in memory for the hot path (personal xck_ keys,
// platform plt_ keys). Entries live `ttlMs`; an invalidation (a key revoked or rotated on any
// replica, heard through the invalidation bus) drops them at once, and a lookup that started
// before an invalidation is not kept after it (the generation count), so a revoked key is never
// cached again by a lookup racing its revocation.
export class DigestCache<V> {
  private readonly entries = new Map<string, { value: V; loadedAt: number }>();
  private readonly ttlMs: number;
  private generation = 0;

  constructor(ttlMs: number) {
    this.ttlMs = ttlMs;
  }

  /** The value kept for `digest`, or `load`'s answer (kept unless null or invalidated meanwhile). */
  async get(digest: string, load: () => Promise<V | null>): Promise<V | null> {
    const kept = this.entries.get(digest);
    if (kept && Date.now() - kept.loadedAt <= this.ttlMs) return kept.value;
    const startedAt = this.generation;
    const value = await load();
    if (value === null) {
      this.entries.delete(digest);
      return null;
    }
    if (this.generation === startedAt) this.entries.set(digest, { value, loadedAt: Date.now() });
    return value;
  }

  /** Drops every entry `matches` picks; lookups under way are not kept. */
  forget(matches: (v: V) => boolean): void {
    this.generation++;
    for (const [d, e] of this.entries) if (matches(e.value)) this.entries.delete(d);
  }

  /** Drops everything (the bus reconnected: notices may have been missed). */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
