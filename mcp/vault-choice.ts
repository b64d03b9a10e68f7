// Which vault the secret tools act on: the tool call's own vault_id, else the configured one
// (VAULT_ID, or X-Vault-ID on an HTTP connection), else the single vault the agent can see.
// With none or several, the assistant is told what to do and, for several, which vaults there are.
import type { VaultApi } from './vault-api.ts';

/** A refusal of the tool server's own (not the API's): shown to the assistant as a tool error. */
export class ToolRefusal extends Error {}

export class VaultChoice {
  private readonly api: VaultApi;
  private readonly configured: string | undefined;
  private discovered: string | undefined;

  constructor(api: VaultApi, configured?: string) {
    this.api = api;
    this.configured = configured;
  }

  async resolve(explicit?: string): Promise<string> {
    if (explicit) return explicit;
    if (this.configured) return this.configured;
    if (this.discovered) return this.discovered;
    const vaults = await this.api.listVaults();
    if (vaults.length === 1) {
      this.discovered = vaults[0]!.id;
      return this.discovered;
    }
    if (vaults.length === 0) {
      throw new ToolRefusal('This agent can use no vault yet: ask its owner to grant it a policy on a vault, or create one with create_vault.');
    }
    const names = vaults.map((v) => `"${v.name}" (${v.id})`).join(', ');
    throw new ToolRefusal(`This agent can use ${vaults.length} vaults: ${names}. Pass vault_id to choose one (or set VAULT_ID for every call).`);
  }

  /** The vault a call without vault_id uses, if it is already known without asking the API. */
  get current(): string | undefined {
    return this.configured ?? this.discovered;
  }
}
