// Execution bindings' objects, built the same way in the api process (routes) and, for the
// `execute_intent` automation step, in the worker: one credential resolver over the secret read
// command (vault_ref credentials are read with the agent's own permissions), the commands and the
// executor, both sending through the given SSRF-safe outbound client.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../domain/crypto/kms/kms.ts';
import type { ActionAudit } from '../domain/audit/action-audit.ts';
import type { Exemptions, OutboundClient } from '../domain/net/outbound/index.ts';
import { CredentialResolver, type SecretRead } from '../domain/bindings/credential-resolver.ts';
import { BindingCommands } from '../domain/bindings/binding-commands.ts';
import { BindingExecutor } from '../domain/bindings/binding-executor.ts';

export type BindingServices = { bindings: BindingCommands; bindingExecutor: BindingExecutor };

export function bindingServices(d: {
  db: () => EntityManager; kms: Kms; audit: ActionAudit; secrets: SecretRead; outbound: OutboundClient; exemptions: Exemptions;
}): BindingServices {
  const credentials = new CredentialResolver({ db: d.db, kms: d.kms, secrets: d.secrets });
  return {
    bindings: new BindingCommands({ db: d.db, kms: d.kms, audit: d.audit, outbound: d.outbound, exemptions: d.exemptions, credentials }),
    bindingExecutor: new BindingExecutor({ db: d.db, audit: d.audit, outbound: d.outbound, credentials }),
  };
}
