// A binding's credential at call time. `inline`: decrypted from the reserved vault. `vault_ref`:
// read through the one secret read command with the agent's own ActionContext, so the agent's
// policies, explicit scopes, the Intents restriction, expiry and read caps all decide, and the
// read is audited as `secret.read` by the agent (it fails closed like any read). A refused read
// keeps its status (403, 404, 410 …) with a detail that says which credential and why; the value
// is never part of any message.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { ActionContext } from '../audit/action-context.ts';
import { Problem } from '../errors.ts';
import { readInlineCredential } from './credential-store.ts';
import { credentialProblem } from './http-request.ts';
import { inlineOf, type BindingRow } from './binding-repository.ts';

/** The secret read the resolver needs (SecretCommands.read). */
export type SecretRead = { read(ctx: ActionContext, vaultId: string, path: string, version: number | null): Promise<{ value: string }> };

export type CredentialResolverDeps = { db: () => EntityManager; kms: Kms; secrets: SecretRead };

export class CredentialResolver {
  private readonly d: CredentialResolverDeps;

  constructor(deps: CredentialResolverDeps) {
    this.d = deps;
  }

  /** The credential, or null for a binding without one. `agentCtx` acts as the binding's agent. */
  async resolve(agentCtx: ActionContext, b: BindingRow): Promise<string | null> {
    let value: string | null = null;
    if (b.credential_source_type === 'vault_ref' && b.credential_vault_id && b.credential_path) {
      try {
        value = (await this.d.secrets.read(agentCtx, b.credential_vault_id, b.credential_path, null)).value;
      } catch (e) {
        if (!(e instanceof Problem)) throw e;
        throw new Problem(e.status, `credential_source: the agent cannot read this binding's credential (vault ${b.credential_vault_id}, path ${b.credential_path}): ${e.detail}`, {
          type: e.type, title: e.title, headers: e.headers,
        });
      }
    } else if (b.credential_source_type === 'inline') {
      const at = inlineOf(b);
      value = at ? await readInlineCredential(this.d.db(), this.d.kms, b.org_id, at) : null;
      if (value === null) throw new Problem(409, "The binding's stored credential is missing; set it again with POST …/rotate-credential");
    } else {
      return null;
    }
    const problem = credentialProblem(value);
    if (problem) throw new Problem(422, `credential: this binding's credential cannot be used: ${problem}`);
    return value;
  }
}
