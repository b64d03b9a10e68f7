// Execution bindings (issue 14 §2; reference `/v1/agents/{agent_id}/bindings*`). Who may do what:
//   - create, update, delete, rotate-credential: a human owner or admin of the agent's
//     organization (as signing keys); agents and members get 403, another organization's agent 404.
//   - list, get, the execution list: any human of the organization, and the agent itself.
//   - test: an owner or admin, or the agent itself.
// Creating and testing need a plan with Execution Intents (Pro and up); deleting, updating and
// rotating a credential never do, so a downgraded organization can still clean up.
// A credential is never returned: a binding shows whether one is set and where it comes from.
import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Principal } from '../auth/principal.ts';
import type { Exemptions, OutboundClient } from '../net/outbound/index.ts';
import type { AgentRow } from '../agents/agent-repository.ts';
import { callerOf, subjectOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { loadAgent } from '../agents/agent-repository.ts';
import { assertTierIncludes } from '../limits/tier-limits.ts';
import { ensureAgentKeysVault } from '../vaults/agent-keys-vault.ts';
import { Problem, conflict, forbidden, notFound } from '../errors.ts';
import type { BindingGuardrails, HttpConfig } from './binding-config.ts';
import { checkBindingSetup, type CredentialInput } from './binding-setup.ts';
import { inlineCredentialPath, shredInlineCredential, storeInlineCredential } from './credential-store.ts';
import { CredentialResolver } from './credential-resolver.ts';
import { actingAsAgent } from './agent-context.ts';
import { testBinding, type BindingTestResult } from './binding-test.ts';
import {
  NO_CREDENTIAL, deleteBinding, findBinding, inlineOf, insertBinding, listBindings, listExecutionEvents, updateBinding,
  type BindingRow, type CredentialColumns, type ExecutionEventRow,
} from './binding-repository.ts';

export type BindingDeps = {
  db: () => EntityManager; kms: Kms; audit: ActionAudit; outbound: OutboundClient; exemptions: Exemptions; credentials: CredentialResolver;
};

export type CreateBindingInput = { name: string; binding_type: 'http'; config: HttpConfig; guardrails: BindingGuardrails; credential?: CredentialInput };
export type UpdateBindingInput = { config?: HttpConfig; guardrails?: BindingGuardrails; is_active?: boolean; credential?: CredentialInput };

const bindingNotFound = () => notFound('Binding');

export class BindingCommands {
  private readonly d: BindingDeps;

  constructor(deps: BindingDeps) {
    this.d = deps;
  }

  async create(ctx: ActionContext, agentId: string, input: CreateBindingInput): Promise<BindingRow> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, principal);
    const agent = await loadAgent(em, principal.orgId, agentId);
    await assertTierIncludes(em, principal.orgId, 'execution_intents');
    const config = await checkBindingSetup(em, principal.orgId, this.d.exemptions, input.config, input.credential ?? null);
    const id = randomUUID();
    const vault = input.credential?.type === 'inline' ? await ensureAgentKeysVault(em, this.d.kms, principal) : null;
    let binding: BindingRow;
    try {
      binding = await em.transactional(async (tx) => {
        const credential = await this.credentialColumns(tx, principal, agent.id, id, input.credential ?? null, vault);
        return insertBinding(tx, {
          id, org_id: principal.orgId, agent_id: agent.id, name: input.name, binding_type: input.binding_type, config,
          guardrails: input.guardrails, ...credential, created_by: subjectOf(principal),
        });
      });
    } catch (e) {
      if (e instanceof UniqueConstraintViolationException) throw conflict(`The agent already has a binding named ${JSON.stringify(input.name)}`);
      throw e;
    }
    await this.d.audit.record(ctx, 'binding.create', { resourceType: 'binding', resourceId: binding.id, details: auditFacts(binding) });
    return binding;
  }

  async list(ctx: ActionContext, agentId: string): Promise<BindingRow[]> {
    const { em, principal, agent } = await this.reader(ctx, agentId);
    return listBindings(em, principal.orgId, agent.id);
  }

  async get(ctx: ActionContext, agentId: string, bindingId: string): Promise<BindingRow> {
    const { em, principal, agent } = await this.reader(ctx, agentId);
    const b = await findBinding(em, principal.orgId, agent.id, bindingId);
    if (!b) throw bindingNotFound();
    return b;
  }

  async update(ctx: ActionContext, agentId: string, bindingId: string, changes: UpdateBindingInput): Promise<BindingRow> {
    const { em, principal, agent, current } = await this.managed(ctx, agentId, bindingId);
    const hasCredential = changes.credential !== undefined || current.credential_source_type !== null;
    const config = changes.config !== undefined || changes.credential !== undefined
      ? await checkBindingSetup(em, principal.orgId, this.d.exemptions, changes.config ?? current.config, changes.credential ?? null, hasCredential)
      : undefined;
    const vault = changes.credential?.type === 'inline' ? await ensureAgentKeysVault(em, this.d.kms, principal) : null;
    const updated = await em.transactional(async (tx) => {
      const locked = await findBinding(tx, principal.orgId, agent.id, current.id, true);
      if (!locked) throw bindingNotFound();
      let credential: CredentialColumns | undefined;
      if (changes.credential !== undefined) {
        credential = await this.credentialColumns(tx, principal, agent.id, locked.id, changes.credential, vault);
        const old = inlineOf(locked);
        if (old && changes.credential.type !== 'inline') await shredInlineCredential(tx, old.vaultId, old.path);
      }
      return updateBinding(tx, locked.id, { config, guardrails: changes.guardrails, is_active: changes.is_active, credential });
    });
    const fields = Object.entries(changes).filter(([, v]) => v !== undefined).map(([k]) => k);
    await this.d.audit.record(ctx, 'binding.update', { resourceType: 'binding', resourceId: updated.id, details: { ...auditFacts(updated), fields } });
    return updated;
  }

  async delete(ctx: ActionContext, agentId: string, bindingId: string): Promise<void> {
    const { em, principal, agent, current } = await this.managed(ctx, agentId, bindingId);
    await em.transactional(async (tx) => {
      const locked = await findBinding(tx, principal.orgId, agent.id, current.id, true);
      if (!locked || !(await deleteBinding(tx, locked.id))) throw bindingNotFound();
      const inline = inlineOf(locked);
      if (inline) await shredInlineCredential(tx, inline.vaultId, inline.path);
    });
    await this.d.audit.record(ctx, 'binding.delete', { resourceType: 'binding', resourceId: current.id, details: auditFacts(current) });
  }

  /**
   * Overwrites the stored (inline) credential, config and guardrails untouched. A binding whose
   * credential is a vault reference is rotated where it lives: write a new version of that secret.
   */
  async rotateCredential(ctx: ActionContext, agentId: string, bindingId: string, value: string): Promise<BindingRow> {
    const { em, principal, agent, current } = await this.managed(ctx, agentId, bindingId);
    if (current.credential_source_type === 'vault_ref') {
      throw conflict(`This binding's credential is a vault reference (vault ${current.credential_vault_id}, path ${current.credential_path}): write a new version of that secret, or switch the binding to an inline credential with PATCH`);
    }
    await checkBindingSetup(em, principal.orgId, this.d.exemptions, current.config, { type: 'inline', value });
    const vault = await ensureAgentKeysVault(em, this.d.kms, principal);
    const updated = await em.transactional(async (tx) => {
      const locked = await findBinding(tx, principal.orgId, agent.id, current.id, true);
      if (!locked) throw bindingNotFound();
      if (locked.credential_source_type === 'vault_ref') throw conflict('The binding changed while rotating its credential; read it again');
      const credential = await this.credentialColumns(tx, principal, agent.id, locked.id, { type: 'inline', value }, vault);
      return updateBinding(tx, locked.id, { credential });
    });
    await this.d.audit.record(ctx, 'binding.rotate_credential', {
      resourceType: 'binding', resourceId: updated.id, details: { ...auditFacts(updated), credential_version: updated.inline_version },
    });
    return updated;
  }

  /** A request to the base URL with the credential added: reachability, never the credential. */
  async test(ctx: ActionContext, agentId: string, bindingId: string, timeoutMs: number | undefined): Promise<BindingTestResult> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    const agent = await loadAgent(em, principal.orgId, agentId);
    if (principal.type === 'agent') {
      if (principal.id !== agent.id) throw forbidden("An agent can test only its own bindings");
    } else {
      await requireManager(em, principal);
    }
    const binding = await findBinding(em, principal.orgId, agent.id, bindingId);
    if (!binding) throw bindingNotFound();
    await assertTierIncludes(em, principal.orgId, 'execution_intents');
    // The credential is read as the agent reads it, whoever asks for the test.
    const asAgent = principal.type === 'agent' ? ctx : actingAsAgent(ctx, agent);
    const result = await testBinding({ outbound: this.d.outbound, credentials: this.d.credentials }, asAgent, binding, timeoutMs);
    await this.d.audit.record(ctx, 'binding.test', {
      resourceType: 'binding', resourceId: binding.id, details: { ...auditFacts(binding), success: result.success, latency_ms: result.latencyMs },
    });
    return result;
  }

  /** The agent's execution events, newest first. */
  async listExecutions(ctx: ActionContext, agentId: string, limit: number, offset: number): Promise<ExecutionEventRow[]> {
    const { em, principal, agent } = await this.reader(ctx, agentId);
    return listExecutionEvents(em, principal.orgId, agent.id, limit, offset);
  }

  /** Humans of the organization, or the agent itself. */
  private async reader(ctx: ActionContext, agentId: string): Promise<{ em: EntityManager; principal: Principal; agent: AgentRow }> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    const agent = await loadAgent(em, principal.orgId, agentId);
    if (principal.type === 'agent' && principal.id !== agent.id) throw forbidden("An agent can see only its own bindings and executions");
    return { em, principal, agent };
  }

  /** Owners and admins, the agent of the organization, and its binding (404 otherwise). */
  private async managed(ctx: ActionContext, agentId: string, bindingId: string) {
    const principal = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, principal);
    const agent = await loadAgent(em, principal.orgId, agentId);
    const current = await findBinding(em, principal.orgId, agent.id, bindingId);
    if (!current) throw bindingNotFound();
    return { em, principal, agent, current };
  }

  /** The credential columns for `input`, storing an inline value in the reserved vault. In the caller's transaction. */
  private async credentialColumns(tx: EntityManager, principal: Principal, agentId: string, bindingId: string, input: CredentialInput | null,
    vault: Awaited<ReturnType<typeof ensureAgentKeysVault>> | null): Promise<CredentialColumns> {
    if (input === null) return NO_CREDENTIAL;
    if (input.type === 'vault_ref') {
      return { ...NO_CREDENTIAL, credential_source_type: 'vault_ref', credential_vault_id: input.vault_id, credential_path: input.path };
    }
    if (!vault) throw new Problem(500, 'the reserved vault was not prepared');
    const path = inlineCredentialPath(agentId, bindingId);
    const version = await storeInlineCredential(tx, this.d.kms, vault, path, input.value, subjectOf(principal));
    return { ...NO_CREDENTIAL, credential_source_type: 'inline', inline_vault_id: vault.id, inline_path: path, inline_version: version };
  }
}

/** What the audit log keeps of a binding: never a credential, a header value or a URL's query. */
function auditFacts(b: BindingRow): Record<string, unknown> {
  return {
    agent_id: b.agent_id, name: b.name, binding_type: b.binding_type, base_url: b.config.base_url, is_active: b.is_active,
    credential_source_type: b.credential_source_type,
    ...(b.credential_source_type === 'vault_ref' ? { credential_vault_id: b.credential_vault_id, credential_path: b.credential_path } : {}),
  };
}
