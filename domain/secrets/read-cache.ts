// Secret reads that succeeded, kept so the same caller's next read of the same path needs no
// query of its own: it is decided and decrypted from here, and its audit record carries a guard
// (read-guard.ts) that Postgres checks in the statement appending it. A stale entry therefore
// costs one relinked batch and a fresh read, never a stale answer.
//
// Entries hold what the database holds (ciphertext, wrapped data key, metadata, policies),
// never a plaintext value. They are bounded in number, in bytes and in age.
import type { AccessFacts } from './secret-lookup.ts';

export type CachedRead = {
  orgId: string;
  vaultId: string;
  vaultXmin: string;
  /** What the decision needs (policies, role, Intents flag): derived from rows the guard compares. */
  facts: AccessFacts;
  principalState: string;
  secretId: string;
  secretXmin: string;
  version: number;
  versionXmin: string;
  ciphertext: Buffer;
  wrappedKey: Buffer;
  keyRef: string;
  type: string;
  metadata: Record<string, unknown> | null;
  description: string | null;
  expiresAt: Date | null;
  createdBy: string;
  createdAt: Date | null;
  /** A client-side (CMEK) ciphertext: the client decrypts the value. */
  cmekEncrypted: boolean;
};

type Entry = { read: CachedRead; bytes: number; storedAtMs: number };

export const MAX_ENTRIES = 10_000;
export const MAX_BYTES = 32 * 1024 * 1024;
// Staleness is caught by the guard whatever the age; the bound only lets unused entries go.
export const MAX_AGE_MS = 5 * 60_000;

/** What an entry holds, roughly: buffers as they are, text at two bytes a character. */
function sizeOf(key: string, r: CachedRead): number {
  const text = key.length + (r.description?.length ?? 0) + JSON.stringify(r.metadata ?? {}).length + JSON.stringify(r.facts.policies).length;
  return r.ciphertext.length + r.wrappedKey.length + 2 * text + 512;
}

export class ReadCache {
  // Map order is the order entries were stored (get does not reorder), so the oldest is first.
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor() {
    // Entries nobody reads again leave by age too, not only when newer ones push them out.
    setInterval(() => this.sweep(Date.now()), 60_000).unref();
  }

  static key(vaultId: string, path: string, version: number | null, principalType: string, principalId: string): string {
    return `${vaultId}\u0000${path}\u0000${version ?? ''}\u0000${principalType}\u0000${principalId}`;
  }

  get(key: string, nowMs = Date.now()): CachedRead | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (nowMs - e.storedAtMs > MAX_AGE_MS) {
      this.delete(key);
      return undefined;
    }
    return e.read;
  }

  set(key: string, read: CachedRead, nowMs = Date.now()): void {
    this.delete(key);
    this.sweep(nowMs);
    const bytes = sizeOf(key, read);
    if (bytes > MAX_BYTES / 16) return; // a few large values must not push out everything else
    while (this.entries.size >= MAX_ENTRIES || this.bytes + bytes > MAX_BYTES) {
      this.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, { read, bytes, storedAtMs: nowMs });
    this.bytes += bytes;
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.bytes;
  }

  /** Drops the entries older than the age bound (they are all at the front). */
  sweep(nowMs: number): void {
    for (const [key, e] of this.entries) {
      if (nowMs - e.storedAtMs <= MAX_AGE_MS) return;
      this.delete(key);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** The bytes held, as estimated. */
  get heldBytes(): number {
    return this.bytes;
  }
}
