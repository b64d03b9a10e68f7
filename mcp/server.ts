// One MCP server for one agent's credentials: the tools of spec §4.18 (plus the reference's
// common extras our API has routes for) and the secrets resource, all calling our HTTP API.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ApiClient } from './api-client.ts';
import type { AgentAuth } from './credentials.ts';
import type { McpLogger } from './log.ts';
import { VaultApi } from './vault-api.ts';
import { VaultChoice } from './vault-choice.ts';
import { registerSecretsResource } from './resources.ts';
import type { ToolContext } from './tools/tool-kit.ts';
import { registerVaultTools } from './tools/vaults.ts';
import { registerSecretReadTools } from './tools/secrets-read.ts';
import { registerSecretWriteTools } from './tools/secrets-write.ts';
import { registerSharingTools } from './tools/sharing.ts';
import { registerAutomationTools } from './tools/automations.ts';
import { registerApprovalTools } from './tools/approvals.ts';
import { registerTransactionTools } from './tools/transactions.ts';
import { registerTreasuryTools } from './tools/treasury.ts';

export const MCP_SERVER_NAME = 'ocv-vault';
export const MCP_SERVER_VERSION = '0.1.0';

const INSTRUCTIONS = 'Tools of a secrets vault, acting as one AI agent within the policies its owner granted. '
  + 'list_secrets, describe_secret and list_versions never show values; get_secret does: use a value for the task and do not repeat it. '
  + 'A refusal is a tool error carrying the API\'s problem details (status, title, detail).';

export function toolContext(apiUrl: string, auth: AgentAuth, log: McpLogger, vaultId?: string): ToolContext {
  const api = new VaultApi(new ApiClient(apiUrl, auth));
  return { api, auth, log, vaults: new VaultChoice(api, vaultId) };
}

export function buildMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { instructions: INSTRUCTIONS });
  registerVaultTools(server, ctx);
  registerSecretReadTools(server, ctx);
  registerSecretWriteTools(server, ctx);
  registerSharingTools(server, ctx);
  registerAutomationTools(server, ctx);
  registerApprovalTools(server, ctx);
  registerTransactionTools(server, ctx);
  registerTreasuryTools(server, ctx);
  registerSecretsResource(server, ctx);
  return server;
}
