// The checks a binding's configuration must pass when it is stored (create, update, rotation),
// beyond its shape: the base URL against the SSRF policy (the same check webhooks get, and the
// outbound client repeats it with DNS before every send), the credential's source, and how the
// credential is injected. Every refusal is a 400 naming the field.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Exemptions } from '../net/outbound/index.ts';
import { invalidField } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { splitChecked } from '../paths/secret-path.ts';
import type { HttpConfig } from './binding-config.ts';
import { isStandardVaultOf } from './binding-repository.ts';
import { authHeaderName, canonicalBaseUrl, credentialProblem } from './http-request.ts';

/** A new credential: a value kept inline (encrypted), or a pointer to a secret the agent reads itself. */
export type CredentialInput = { type: 'inline'; value: string } | { type: 'vault_ref'; vault_id: string; path: string };

/** The config to store (canonical base URL), after every check. `hasCredential`: once stored, will the binding have one? */
export async function checkBindingSetup(em: EntityManager, orgId: string, exemptions: Exemptions, config: HttpConfig,
  credential: CredentialInput | null, hasCredential = credential !== null): Promise<HttpConfig> {
  const base = canonicalBaseUrl(config.base_url, exemptions);
  if (!base.ok) throw invalidField('config.base_url', base.reason);
  if (credential?.type === 'inline') {
    const problem = credentialProblem(credential.value);
    if (problem) throw invalidField('credential', problem);
  }
  if (credential?.type === 'vault_ref') await checkVaultRef(em, orgId, credential);
  if (config.auth && !hasCredential) throw invalidField('config.auth', 'needs a credential (credential or credential_source)');
  const credHeader = authHeaderName(hasCredential ? config.auth ?? { type: 'bearer' } : undefined);
  const clash = Object.keys(config.headers ?? {}).find((h) => h.toLowerCase() === credHeader);
  if (clash) throw invalidField(`config.headers.${clash}`, 'is where the credential goes (config.auth); static headers cannot set it');
  return { ...config, base_url: base.url };
}

/** The vault must be one of the organization's; the path canonical. Whether the agent may read it is decided at each call. */
async function checkVaultRef(em: EntityManager, orgId: string, c: { vault_id: string; path: string }): Promise<void> {
  splitChecked(c.path, 'credential_source.path'); // 400 naming the segment and the reason
  if (!isUuid(c.vault_id) || !(await isStandardVaultOf(em, orgId, c.vault_id))) {
    throw invalidField('credential_source.vault_id', 'is not a vault of this organization');
  }
}
