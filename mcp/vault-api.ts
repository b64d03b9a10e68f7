// The routes of our /v1 API the tools call, typed by what the tools read from the answers
// (every other member is passed through as the API sent it).
import type { ApiClient } from './api-client.ts';
import { encodePath } from './http-json.ts';

export type Vault = { id: string; name: string; description: string; created_by: string; created_by_type: string; created_at: string; [k: string]: unknown };
export type SecretMeta = { id: string; path: string; type: string; version: number; expires_at?: string; [k: string]: unknown };
export type SecretPage = { secrets: SecretMeta[]; count: number; next_cursor: string | null };
export type SecretValue = SecretMeta & { value: string };
export type Json = Record<string, unknown>;

/** Chain calls reach an RPC node (nonce, gas, simulation): they may take longer than the rest. */
const CHAIN_TIMEOUT_MS = 120_000;

const vaultPath = (vaultId: string) => `/v1/vaults/${encodeURIComponent(vaultId)}`;
const proposalsPath = (treasuryId: string) => `/v1/treasury/${encodeURIComponent(treasuryId)}/proposals`;

export class VaultApi {
  readonly client: ApiClient;

  constructor(client: ApiClient) {
    this.client = client;
  }

  // Vaults and policies.
  listVaults = async (): Promise<Vault[]> => (await this.client.request<{ vaults: Vault[] }>('GET', '/v1/vaults')).vaults;
  createVault = (body: { name: string; description?: string }) => this.client.request<Vault>('POST', '/v1/vaults', { body });
  createPolicy = (vaultId: string, body: Json) => this.client.request<Json>('POST', `${vaultPath(vaultId)}/policies`, { body });

  // Secrets.
  listSecrets = (vaultId: string, q: { prefix?: string; cursor?: string; limit?: number }) =>
    this.client.request<SecretPage>('GET', `${vaultPath(vaultId)}/secrets`, { query: q });
  readSecret = (vaultId: string, path: string, version?: number) =>
    this.client.request<SecretValue>('GET', `${vaultPath(vaultId)}/secrets/${encodePath(path)}`, { query: { version } });
  writeSecret = (vaultId: string, path: string, body: Json) =>
    this.client.request<SecretMeta>('PUT', `${vaultPath(vaultId)}/secrets/${encodePath(path)}`, { body });
  deleteSecret = (vaultId: string, path: string) =>
    this.client.request<void>('DELETE', `${vaultPath(vaultId)}/secrets/${encodePath(path)}`);
  secretVersions = async (vaultId: string, path: string): Promise<SecretMeta[]> =>
    (await this.client.request<{ versions: SecretMeta[] }>('GET', `${vaultPath(vaultId)}/secret-versions/${encodePath(path)}`)).versions;
  rotateSecret = (vaultId: string, path: string, body: Json) =>
    this.client.request<SecretMeta>('POST', `${vaultPath(vaultId)}/secret-rotate/${encodePath(path)}`, { body });

  // Sharing.
  shareSecret = (secretId: string, body: Json) => this.client.request<Json>('POST', `/v1/secrets/${encodeURIComponent(secretId)}/share`, { body });

  // Automations.
  listAutomations = () => this.client.request<{ automations: Json[] }>('GET', '/v1/automations');
  triggerAutomation = (id: string, input: Json | undefined) =>
    this.client.request<Json>('POST', `/v1/automations/${encodeURIComponent(id)}/trigger`, { body: input === undefined ? {} : { input } });

  // Human approvals.
  requestApproval = (body: Json) => this.client.request<Json>('POST', '/v1/approvals/request', { body });
  listApprovals = (q: { status?: string; limit?: number }) => this.client.request<Json>('GET', '/v1/approvals', { query: q });
  approvalStatus = (id: string) => this.client.request<Json>('GET', `/v1/approvals/${encodeURIComponent(id)}/status`);

  // Intents API: the agent's own transactions.
  simulateTransaction = (agentId: string, body: Json) =>
    this.client.request<Json>('POST', `/v1/agents/${encodeURIComponent(agentId)}/transactions/simulate`, { body, timeoutMs: CHAIN_TIMEOUT_MS });
  submitTransaction = (agentId: string, body: Json, idempotencyKey: string) =>
    this.client.request<Json>('POST', `/v1/agents/${encodeURIComponent(agentId)}/transactions`, {
      body, headers: { 'idempotency-key': idempotencyKey }, timeoutMs: CHAIN_TIMEOUT_MS,
    });
  signTransaction = (agentId: string, body: Json, idempotencyKey: string) =>
    this.client.request<Json>('POST', `/v1/agents/${encodeURIComponent(agentId)}/transactions/sign`, {
      body, headers: { 'idempotency-key': idempotencyKey }, timeoutMs: CHAIN_TIMEOUT_MS,
    });

  // Safe treasury proposals (the treasury's Safe on its chain: creating one reads the Safe's nonce).
  proposeTreasuryTransaction = (treasuryId: string, body: Json) =>
    this.client.request<Json>('POST', proposalsPath(treasuryId), { body, timeoutMs: CHAIN_TIMEOUT_MS });
  signTreasuryProposal = (treasuryId: string, proposalId: string, body: Json) =>
    this.client.request<Json>('POST', `${proposalsPath(treasuryId)}/${encodeURIComponent(proposalId)}/sign`, { body });
  listTreasuryProposals = (treasuryId: string, q: { status?: string }) =>
    this.client.request<{ proposals: Json[] }>('GET', proposalsPath(treasuryId), { query: q });
}
