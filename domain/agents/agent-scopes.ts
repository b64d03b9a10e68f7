// Agent scopes (spec §2.5a). An agent either has explicit scopes, which bind every request its
// token makes, or none, and then its token's scopes are derived: the path patterns of its live
// policies, else `*`. Derived scopes are informational (the live policy check covers them).
//
// "None" is stored as NULL. An empty list on input means the same thing (as in the reference,
// where `scopes` is a plain array and "if set" means non-empty): so the `[]` a record shows for
// an agent without explicit scopes can be sent back unchanged without locking the agent out.

/** What to store for `scopes` from input: a non-empty list, or null for "none, derive them". */
export function explicitScopes(scopes: readonly string[] | null): string[] | null {
  return scopes === null || scopes.length === 0 ? null : [...scopes];
}

export type ScopesSource = 'explicit' | 'policies' | 'default';

export type TokenScopes = { scopes: string[]; source: ScopesSource; vaultIds: string[] };

/**
 * The scopes and vault ids an agent's token carries: its explicit scopes if it has any (an
 * empty stored list counts as none), else the patterns of its live policies, else `*`.
 * Vault ids are those its policies name, then those it created, each once, in that order.
 */
export function tokenScopes(explicit: readonly string[] | null, policyPatterns: readonly string[], policyVaultIds: readonly string[], createdVaultIds: readonly string[]): TokenScopes {
  const vaultIds = [...new Set([...policyVaultIds, ...createdVaultIds])];
  if (explicit !== null && explicit.length > 0) return { scopes: [...explicit], source: 'explicit', vaultIds };
  if (policyPatterns.length > 0) return { scopes: [...new Set(policyPatterns)], source: 'policies', vaultIds };
  return { scopes: ['*'], source: 'default', vaultIds };
}
