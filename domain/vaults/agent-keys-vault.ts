// The organization's reserved vault `__agent-keys` (kind 'agent_keys'): where the handles of its
// agents' signing keys are kept, encrypted like any secret under the vault's own KMS key. Created
// on first use; the unique index vaults_agent_keys_once keeps it to one per organization, so two
// first uses at once end with one vault (the loser's fresh KMS key is destroyed unused).
// Users never see it: every listing, lookup, tier count and the secret read path select
// kind = 'standard' only (vault-repository.ts, secret-lookup.ts, tier-limits.ts, shares).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import { creatorType, type Principal } from '../auth/principal.ts';
import { AGENT_KEYS_VAULT } from './vault-repository.ts';
import { findAgentKeysVault, insertAgentKeysVault, type AgentKeysVault } from './agent-keys-repository.ts';

export { findAgentKeysVault, type AgentKeysVault };

/**
 * The organization's reserved vault, created now if it has none. Runs in its own statements (not
 * the caller's transaction): an empty reserved vault left by a failed first use is harmless.
 */
export async function ensureAgentKeysVault(em: EntityManager, kms: Kms, p: Principal): Promise<AgentKeysVault> {
  const existing = await findAgentKeysVault(em, p.orgId);
  if (existing) return existing;
  const id = randomUUID();
  const keyRef = await kms.createVaultKey(id);
  const created = await insertAgentKeysVault(em, {
    id, orgId: p.orgId, name: AGENT_KEYS_VAULT, keyBackend: kms.backend, keyRef, createdBy: p.id, createdByType: creatorType(p),
  });
  if (created) return created;
  await kms.destroyVaultKey(keyRef); // another request created it first; this key wraps nothing
  const winner = await findAgentKeysVault(em, p.orgId);
  if (!winner) throw new Error('the reserved agent keys vault vanished while being created');
  return winner;
}
