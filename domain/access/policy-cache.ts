// A principal's policies on a vault, remembered with the vault's policy_version at the time.
// Only a read that fetched the same version in the same query may use them, so this cache
// saves Postgres the policy aggregation without ever serving a grant that was changed.
import type { PolicyRow } from './access.ts';

const MAX_ENTRIES = 20_000;

export class VersionedPolicyCache {
  private readonly entries = new Map<string, { version: string; policies: PolicyRow[] }>();

  private static key(vaultId: string, principalType: string, principalId: string): string {
    return `${vaultId}|${principalType}|${principalId}`;
  }

  /** The version held for this vault and principal, or null: what the read asks Postgres to compare. */
  versionOf(vaultId: string, principalType: string, principalId: string): string | null {
    return this.entries.get(VersionedPolicyCache.key(vaultId, principalType, principalId))?.version ?? null;
  }

  /** The policies held at exactly this version, if any. */
  at(vaultId: string, principalType: string, principalId: string, version: string): PolicyRow[] | undefined {
    const e = this.entries.get(VersionedPolicyCache.key(vaultId, principalType, principalId));
    return e && e.version === version ? e.policies : undefined;
  }

  remember(vaultId: string, principalType: string, principalId: string, version: string, policies: PolicyRow[]): void {
    const key = VersionedPolicyCache.key(vaultId, principalType, principalId);
    this.entries.delete(key); // re-inserted last, so the oldest entries go first
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { version, policies });
  }
}
