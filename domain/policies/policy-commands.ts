// Policy actions: owners, admins and the vault's creator manage a vault's grants. A vault the
// caller cannot see is not found; one they can see but not manage is forbidden. Changes apply to
// the very next request (a trigger moves the vault's policy_version, see migration 0004).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { HotReads } from '../../db/hot-reads.ts';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { callerOf } from '../auth/principal.ts';
import { loadCaller } from '../access/caller.ts';
import { isManager, isVaultCreator } from '../access/access.ts';
import { loadVisibleVault, type VaultRow } from '../vaults/vault-repository.ts';
import { createPolicy, updatePolicy, deletePolicy, listPolicies, type PolicyInput, type PolicyRecord, type PolicyUpdate } from './policy-store.ts';
import { forbidden } from '../errors.ts';

export type PolicyDeps = { db: () => EntityManager; hot: HotReads; audit: ActionAudit };

export class PolicyCommands {
  private readonly d: PolicyDeps;

  constructor(deps: PolicyDeps) {
    this.d = deps;
  }

  async create(ctx: ActionContext, vaultId: string, input: PolicyInput): Promise<PolicyRecord> {
    const vault = await this.managedVault(ctx, vaultId);
    const policy = await this.d.db().transactional((tx) => createPolicy(tx, callerOf(ctx), vault.id, input));
    await this.d.audit.record(ctx, 'policy.create', { resourceType: 'policy', resourceId: policy.id, details: { vault_id: vault.id } });
    return policy;
  }

  async list(ctx: ActionContext, vaultId: string): Promise<PolicyRecord[]> {
    const vault = await this.managedVault(ctx, vaultId);
    return listPolicies(this.d.db(), vault.id);
  }

  async update(ctx: ActionContext, vaultId: string, policyId: string, change: PolicyUpdate): Promise<PolicyRecord> {
    const vault = await this.managedVault(ctx, vaultId);
    const policy = await this.d.db().transactional((tx) => updatePolicy(tx, callerOf(ctx), vault.id, policyId, change));
    await this.d.audit.record(ctx, 'policy.update', { resourceType: 'policy', resourceId: policy.id, details: { vault_id: vault.id } });
    return policy;
  }

  async delete(ctx: ActionContext, vaultId: string, policyId: string): Promise<void> {
    const vault = await this.managedVault(ctx, vaultId);
    const policy = await this.d.db().transactional((tx) => deletePolicy(tx, callerOf(ctx), vault.id, policyId));
    await this.d.audit.record(ctx, 'policy.delete', { resourceType: 'policy', resourceId: policy.id, details: { vault_id: vault.id } });
  }

  /** The vault, if the caller may manage its policies (managers and the vault creator). */
  private async managedVault(ctx: ActionContext, vaultId: string): Promise<VaultRow> {
    const caller = await loadCaller(this.d.hot, callerOf(ctx), ctx.clientIp);
    const { vault } = await loadVisibleVault(this.d.db(), caller, vaultId);
    if (!isManager(caller) && !isVaultCreator(caller, vault)) throw forbidden('Only organization owners and admins, or the vault creator, manage its policies');
    return vault;
  }
}
