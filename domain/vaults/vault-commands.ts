// Vault actions. Each owns its transaction and its audit record. A vault gets its own key in the
// KMS at creation; deleting a vault destroys that key (crypto-shredding).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { loadCaller } from '../access/caller.ts';
import { isManager, isVaultCreator } from '../access/access.ts';
import { assertBelowTierLimit } from '../limits/tier-limits.ts';
import { insertVault, listVisibleVaults, loadVisibleVault, markVaultDeleted, type VaultRow } from './vault-repository.ts';
import { forbidden, notFound } from '../errors.ts';
import { findAgentKeysVault } from './agent-keys-vault.ts';
import { callerOf } from '../auth/principal.ts';

export type VaultDeps = { db: () => EntityManager; hot: HotReads; kms: Kms; audit: ActionAudit };

export class VaultCommands {
  private readonly d: VaultDeps;

  constructor(deps: VaultDeps) {
    this.d = deps;
  }

  async create(ctx: ActionContext, input: { name: string; description: string }): Promise<VaultRow> {
    const principal = callerOf(ctx);
    const vault = await this.d.db().transactional(async (tx) => {
      await assertBelowTierLimit(tx, principal.orgId, 'vaults');
      const id = randomUUID();
      const keyRef = await this.d.kms.createVaultKey(id);
      return insertVault(tx, id, this.d.kms.backend, keyRef, principal, input);
    });
    await this.d.audit.record(ctx, 'vault.create', { resourceType: 'vault', resourceId: vault.id });
    return vault;
  }

  /** The vaults the caller can see: managers and creators see theirs, others those they hold a grant on. */
  async list(ctx: ActionContext): Promise<VaultRow[]> {
    const caller = await loadCaller(this.d.hot, callerOf(ctx), ctx.clientIp);
    return listVisibleVaults(this.d.db(), caller);
  }

  async get(ctx: ActionContext, vaultId: string): Promise<VaultRow> {
    const caller = await loadCaller(this.d.hot, callerOf(ctx), ctx.clientIp);
    return (await loadVisibleVault(this.d.db(), caller, vaultId)).vault;
  }

  /**
   * The id of the organization's reserved `__agent-keys` vault (reference getAgentKeysVault), which
   * exists once an agent got a signing key or a binding an inline credential. Only its id: the
   * vault stays out of every listing and lookup.
   */
  async agentKeysVaultId(ctx: ActionContext): Promise<string> {
    const vault = await findAgentKeysVault(this.d.db(), callerOf(ctx).orgId);
    if (!vault) throw notFound('Agent keys vault');
    return vault.id;
  }

  async delete(ctx: ActionContext, vaultId: string): Promise<void> {
    const caller = await loadCaller(this.d.hot, callerOf(ctx), ctx.clientIp);
    const em = this.d.db();
    const { vault } = await loadVisibleVault(em, caller, vaultId);
    if (!isManager(caller) && !isVaultCreator(caller, vault)) throw forbidden('Only organization owners and admins, or the vault creator, can delete a vault');
    await em.transactional((tx) => markVaultDeleted(tx, vault.id));
    // Then the key itself: once destroyed, nothing under it can ever be decrypted again.
    await this.d.kms.destroyVaultKey(vault.key_ref);
    await this.d.audit.record(ctx, 'vault.delete', { resourceType: 'vault', resourceId: vault.id });
  }
}
