// Agents' signing keys (spec §4.7, issue 13 §2; reference `/v1/agents/{agent_id}/signing-keys*`).
// Who may do what:
//   - create, rotate, deactivate, export: a human owner or admin of the agent's organization;
//     agents and members get 403, another organization's agent is a 404.
//   - list: any human of the organization, and the agent itself for its own keys (public facts).
// The key pair is made inside the KMS (`pkcs11`: in the token, non-extractable); its handle is a
// secret of the reserved `__agent-keys` vault (key-handles.ts) and never leaves the domain. Each
// command owns its transaction, its events and its audit record; a KMS key made for a write that
// then fails is destroyed unused.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { toHex } from 'viem';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import type { Logger } from '../../log.ts';
import type { Principal } from '../../auth/principal.ts';
import type { StepUp } from '../../accounts/step-up.ts';
import { KmsKeyNotExtractableError, KmsSigningKeyError, type Kms, type SigningKeyRef } from '../../crypto/kms/kms.ts';
import { callerOf, subjectOf } from '../../auth/principal.ts';
import { requireManager } from '../../access/roles.ts';
import { loadAgent } from '../../agents/agent-repository.ts';
import { loadAccount } from '../../accounts/user-repository.ts';
import { isReauthToken } from '../../accounts/step-up.ts';
import { Problem, conflict, forbidden } from '../../errors.ts';
import { ensureAgentKeysVault, type AgentKeysVault } from '../../vaults/agent-keys-vault.ts';
import { provisionSigningKey } from './provision-key.ts';
import { resolveSigningChain, type SigningChain } from './signing-chains.ts';
import { KEY_FAMILIES } from './key-families.ts';
import { readHandle, shredHandle } from './key-handles.ts';
import {
  activeSigningKey, deactivateSigningKey, handleOf, listSigningKeys, type SigningKeyRow,
} from './key-repository.ts';

export type SigningKeyDeps = {
  db: () => EntityManager; kms: Kms; audit: ActionAudit; log: Logger;
  /** X-Auth-Confirm for export: the password (throttled like DELETE /v1/auth/me) or a `rat_` token for `signing_key.export`. */
  stepUp: StepUp;
};

/** An exported key: its record and the private scalar as 0x-hex. */
export type ExportedSigningKey = { key: SigningKeyRow; privateKey: string };

const noActiveKey = (chain: string) => new Problem(404, `The agent has no active ${chain} signing key`);
const activeExists = (chain: string) => conflict(`The agent already has an active ${chain} signing key: rotate it, or deactivate it first`);

export class SigningKeyCommands {
  private readonly d: SigningKeyDeps;

  constructor(deps: SigningKeyDeps) {
    this.d = deps;
  }

  async create(ctx: ActionContext, agentId: string, rawChain: string | number): Promise<SigningKeyRow> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, principal);
    const agent = await loadAgent(em, principal.orgId, agentId);
    const chain = await resolveSigningChain(em, rawChain);
    // Checked before the KMS makes a key; the partial unique index decides a race.
    if (await activeSigningKey(em, principal.orgId, agent.id, chain)) throw activeExists(chain);
    const vault = await ensureAgentKeysVault(em, this.d.kms, principal);
    const key = await this.provision(em, principal, vault, agent.id, chain, null);
    await this.d.audit.record(ctx, 'signing_key.create', { resourceType: 'signing_key', resourceId: key.id, details: auditFacts(key) });
    return key;
  }

  async list(ctx: ActionContext, agentId: string): Promise<SigningKeyRow[]> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    const agent = await loadAgent(em, principal.orgId, agentId);
    if (principal.type === 'agent' && principal.id !== agent.id) throw forbidden('An agent can list only its own signing keys');
    return listSigningKeys(em, principal.orgId, agent.id);
  }

  /** What rotate and deactivate act on: owners and admins only, the agent's active key for the chain (404 without one). */
  private async managedActiveKey(ctx: ActionContext, agentId: string, rawChain: string) {
    const principal = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, principal);
    const agent = await loadAgent(em, principal.orgId, agentId);
    const chain = await resolveSigningChain(em, rawChain);
    const current = await activeSigningKey(em, principal.orgId, agent.id, chain);
    if (!current) throw noActiveKey(chain);
    return { principal, em, agent, chain, current };
  }

  /**
   * A new key (key_version + 1) replaces the active one in one transaction, with the
   * `signing_key.rotated` event; the old key's handle is erased there and its KMS key destroyed
   * once the new one is recorded. The address changes: funds at the old one must be moved first.
   */
  async rotate(ctx: ActionContext, agentId: string, rawChain: string): Promise<SigningKeyRow> {
    const { principal, em, agent, chain, current } = await this.managedActiveKey(ctx, agentId, rawChain);
    const vault = await ensureAgentKeysVault(em, this.d.kms, principal);
    const oldRef = await readHandle(em, this.d.kms, principal.orgId, handleOf(current));
    const key = await this.provision(em, principal, vault, agent.id, chain, current);
    if (oldRef) await this.destroy(oldRef, current.id);
    await this.d.audit.record(ctx, 'signing_key.rotate', {
      resourceType: 'signing_key', resourceId: key.id,
      details: { ...auditFacts(key), previous_key_id: current.id, previous_address: current.address },
    });
    return key;
  }

  /** DELETE: the key stops signing for good (handle erased, KMS key destroyed); the record stays. */
  async deactivate(ctx: ActionContext, agentId: string, rawChain: string): Promise<void> {
    const { principal, em, chain, current } = await this.managedActiveKey(ctx, agentId, rawChain);
    const ref = await readHandle(em, this.d.kms, principal.orgId, handleOf(current));
    const retired = await em.transactional(async (tx) => {
      if (!(await deactivateSigningKey(tx, current.id))) return false;
      await shredHandle(tx, handleOf(current));
      return true;
    });
    if (!retired) throw noActiveKey(chain); // a concurrent rotation or deactivation got there first
    if (ref) await this.destroy(ref, current.id);
    await this.d.audit.record(ctx, 'signing_key.deactivate', { resourceType: 'signing_key', resourceId: current.id, details: auditFacts(current) });
  }

  /**
   * The active key's private scalar (reference exportSigningKey: X-Auth-Confirm password, humans
   * only). Kept, not refused outright, because the reference's clients rely on it and because with
   * `local` the scalar is software-held anyway: an owner may need it to move funds without this
   * service. It is as narrow as it can be: owners and admins only, the caller's own password
   * re-confirmed (wrong guesses throttled like DELETE /v1/auth/me) or a single-use `rat_` token
   * minted for `signing_key.export` (POST /v1/auth/reauth), the active key only, and the
   * audit record durable before the key is returned (it fails closed). With `pkcs11` the key was
   * generated non-extractable in the token, so there is nothing to export: 409 key_not_extractable.
   */
  async export(ctx: ActionContext, agentId: string, rawChain: string, confirm: string | undefined): Promise<ExportedSigningKey> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, principal);
    const agent = await loadAgent(em, principal.orgId, agentId);
    const chain = await resolveSigningChain(em, rawChain);
    const account = await loadAccount(em, principal.id);
    const wrong = () => new Problem(401, 'Confirm in the X-Auth-Confirm header: your account password, or a rat_ token for signing_key.export');
    if (!account.password_hash && !(confirm && isReauthToken(confirm))) {
      throw forbidden('Exporting a signing key needs a re-authentication: set a password first, or send a rat_ token for signing_key.export (POST /v1/auth/reauth)');
    }
    await this.d.stepUp.confirm(em, account, confirm, { purpose: 'signing_key.export', wrong });
    const key = await activeSigningKey(em, principal.orgId, agent.id, chain);
    if (!key) throw noActiveKey(chain);
    const ref = await readHandle(em, this.d.kms, principal.orgId, handleOf(key));
    if (!ref) throw noActiveKey(chain);
    let scalar: Buffer;
    try {
      scalar = await this.d.kms.exportSigningKey(ref);
    } catch (e) {
      if (e instanceof KmsKeyNotExtractableError) {
        throw new Problem(409, `This ${chain} signing key was generated inside the HSM (key backend pkcs11) and can never leave it, so it cannot be exported. Move funds with a transaction signed by the agent instead`, { type: 'key_not_extractable' });
      }
      if (e instanceof KmsSigningKeyError) throw conflict('The key backend no longer holds this signing key');
      throw e;
    }
    let privateKey: string;
    try {
      // Never hand out a scalar that is not this record's key.
      if (!KEY_FAMILIES[chain].matches(scalar, key.public_key)) throw new Error('the exported key does not match the signing key record');
      privateKey = toHex(scalar);
    } finally {
      scalar.fill(0);
    }
    await this.d.audit.record(ctx, 'signing_key.export', { resourceType: 'signing_key', resourceId: key.id, details: auditFacts(key) });
    return { key, privateKey };
  }

  /** provisionSigningKey for this principal (provision-key.ts), a uniqueness race told as 409. */
  private async provision(em: EntityManager, principal: Principal, vault: AgentKeysVault, agentId: string, chain: SigningChain, previous: SigningKeyRow | null): Promise<SigningKeyRow> {
    try {
      return await provisionSigningKey(em, this.d.kms, { orgId: principal.orgId, subject: subjectOf(principal) }, vault, agentId, chain, previous);
    } catch (e) {
      if (e instanceof UniqueConstraintViolationException) throw activeExists(chain);
      throw e;
    }
  }

  /** Destroys a retired key in the KMS. Its handle is already erased, so a failure is logged, not thrown. */
  private async destroy(ref: SigningKeyRef, keyId: string): Promise<void> {
    try {
      await this.d.kms.destroySigningKey(ref);
    } catch (e) {
      this.d.log.error('a retired signing key could not be destroyed in the key backend (its handle is erased)', {
        signing_key_id: keyId, error: (e as Error).name,
      });
    }
  }
}

/** What the audit log keeps of a key: public facts only, never the handle. */
function auditFacts(k: SigningKeyRow): Record<string, unknown> {
  return { agent_id: k.agent_id, chain: k.chain, key_version: k.key_version, address: k.address, key_backend: k.key_backend };
}
