// The steps of a bootstrap, as the workflow's activities run them (workflows/platform/bootstrap.ts):
// the vault, the agents, the policies, the signing keys, then the completion. Each reads the plan
// (bootstrap-plan.ts) and makes what is missing under its planned ids, so Temporal may run a step
// again after a crash: nothing is made twice. A KMS key made for a vault or signing key whose row
// then turns out to exist already is destroyed unused.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import { emitEvent } from '../events/outbox.ts';
import { subjectOf } from '../auth/principal.ts';
import { ensureAgentKeysVault } from '../vaults/agent-keys-vault.ts';
import { provisionSigningKey } from '../intents/signing-keys/provision-key.ts';
import type { SigningChain } from '../intents/signing-keys/signing-chains.ts';
import { primaryAgent, type BootstrapPlan } from './bootstrap-plan.ts';
import {
  bootstrapOf, insertAppPolicy, insertPlannedAgent, insertPlannedPolicy, insertPlannedVault, markBootstrapCompleted, signingKeyExists, vaultExists,
} from './bootstrap-repository.ts';

export const BOOTSTRAP_STEPS = ['vault', 'agents', 'policies', 'signing_keys', 'complete'] as const;
export type BootstrapStep = (typeof BOOTSTRAP_STEPS)[number];

export class BootstrapSteps {
  private readonly d: { em: () => EntityManager; kms: Kms };

  constructor(deps: { em: () => EntityManager; kms: Kms }) {
    this.d = deps;
  }

  async run(connectionId: string, step: BootstrapStep): Promise<void> {
    const em = this.d.em();
    const row = await bootstrapOf(em, connectionId);
    if (!row) throw new Error(`no bootstrap for connection ${connectionId}`);
    if (row.status === 'completed') return;
    const plan = row.plan;
    switch (step) {
      case 'vault': return this.vault(em, plan);
      case 'agents': return em.transactional(async (tx) => {
        for (const a of plan.agents) {
          if (await insertPlannedAgent(tx, plan, a)) {
            await emitEvent(tx, plan.orgId, 'agent.created', { agent_id: a.id, name: a.name, actor: subjectOf({ type: 'user', id: plan.userId }) });
          }
        }
      });
      case 'policies': return em.transactional(async (tx) => {
        for (const p of plan.policies) await insertPlannedPolicy(tx, plan, p);
        await insertAppPolicy(tx, plan, connectionId);
      });
      case 'signing_keys': return this.signingKeys(em, plan);
      case 'complete': return em.transactional(async (tx) => {
        if (await markBootstrapCompleted(tx, connectionId)) {
          await emitEvent(tx, plan.appOrgId, 'platform.bootstrap.completed', {
            platform_app_id: row.platform_app_id, connection_id: connectionId, user_id: plan.userId, vault_id: plan.vault.id,
            agent_ids: plan.agents.map((a) => a.id), template_id: row.template_id, template_version: row.template_version,
          });
        }
      });
    }
  }

  private async vault(em: EntityManager, plan: BootstrapPlan): Promise<void> {
    if (await vaultExists(em, plan.vault.id)) return;
    const keyRef = await this.d.kms.createVaultKey(plan.vault.id);
    const made = await em.transactional((tx) => insertPlannedVault(tx, plan, this.d.kms.backend, keyRef));
    if (!made) await this.d.kms.destroyVaultKey(keyRef); // another attempt made it first: this key wraps nothing
  }

  private async signingKeys(em: EntityManager, plan: BootstrapPlan): Promise<void> {
    const agent = primaryAgent(plan);
    if (!agent || plan.signingKeys.length === 0) return;
    const owner = { type: 'user' as const, id: plan.userId, orgId: plan.orgId, via: 'jwt' as const };
    const keysVault = await ensureAgentKeysVault(em, this.d.kms, owner);
    for (const k of plan.signingKeys) {
      if (await signingKeyExists(em, k.id)) continue;
      await provisionSigningKey(em, this.d.kms, { orgId: plan.orgId, subject: subjectOf(owner) }, keysVault, agent.id, k.chain as SigningChain, null, k.id);
    }
  }
}
