// Policy actions: owners, admins and the vault's creator manage a vault's grants. A vault the
// caller cannot see is not found; one they can see but not manage is forbidden. Changes apply to
// the very next request (a trigger moves the vault's policy_version, see migration 0004). Every
// change writes its event to the outbox in the same transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { HotReads } from '../../db/hot-reads.ts';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { callerOf, subjectOf, type Principal } from '../auth/principal.ts';
import { loadCaller } from '../access/caller.ts';
import { isManager, isVaultCreator } from '../access/access.ts';
import { loadVisibleVault, type VaultRow } from '../vaults/vault-repository.ts';
import { emitEvent } from '../events/outbox.ts';
import {
  deletePolicyRow, insertPolicy, listPolicies, principalInOrg, updatePolicyRow, type PolicyInput, type PolicyRecord, type PolicyUpdate,
} from './policy-repository.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';

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

/** The principal must exist in the caller's organization: grants never cross tenants. */
async function assertPrincipalInOrg(tx: EntityManager, orgId: string, type: 'user' | 'agent', id: string): Promise<void> {
  if (!isUuid(id) || !(await principalInOrg(tx, orgId, type, id))) {
    throw badRequest(`principal_id: no active ${type} with this id in your organization`);
  }
}

async function createPolicy(tx: EntityManager, actor: Principal, vaultId: string, input: PolicyInput): Promise<PolicyRecord> {
  await assertPrincipalInOrg(tx, actor.orgId, input.principal_type, input.principal_id);
  const p = await insertPolicy(tx, actor, vaultId, input);
  await emitEvent(tx, actor.orgId, 'policy.created', { vault_id: vaultId, policy_id: p.id, principal_type: p.principal_type, principal_id: p.principal_id, secret_path_pattern: p.secret_path_pattern, permissions: p.permissions, actor: subjectOf(actor) });
  return p;
}

async function updatePolicy(tx: EntityManager, actor: Principal, vaultId: string, policyId: string, u: PolicyUpdate): Promise<PolicyRecord> {
  if (!isUuid(policyId)) throw notFound('Policy');
  const p = await updatePolicyRow(tx, actor.orgId, vaultId, policyId, u);
  if (!p) throw notFound('Policy');
  await emitEvent(tx, actor.orgId, 'policy.updated', { vault_id: vaultId, policy_id: p.id, principal_type: p.principal_type, principal_id: p.principal_id, permissions: p.permissions, actor: subjectOf(actor) });
  return p;
}

async function deletePolicy(tx: EntityManager, actor: Principal, vaultId: string, policyId: string): Promise<PolicyRecord> {
  if (!isUuid(policyId)) throw notFound('Policy');
  const p = await deletePolicyRow(tx, actor.orgId, vaultId, policyId);
  if (!p) throw notFound('Policy');
  await emitEvent(tx, actor.orgId, 'policy.deleted', { vault_id: vaultId, policy_id: p.id, principal_type: p.principal_type, principal_id: p.principal_id, actor: subjectOf(actor) });
  return p;
}
