// Vaults and access: list_vaults, create_vault and grant_access. Whether the agent may create
// vaults or manage a vault's policies is the API's call; a refusal comes back as its problem.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { defined, handler, jsonResult, type ToolContext } from './tool-kit.ts';

export function registerVaultTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool('list_vaults', {
    title: 'List vaults',
    description: 'List the vaults this agent can use (id, name, description, who created it). '
      + 'default_vault_id is the vault the secret tools use when no vault_id is passed, when one is set or known.',
    inputSchema: {},
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, handler(ctx, 'list_vaults', async () => {
    const vaults = await ctx.api.listVaults();
    const fallback = vaults.length === 1 ? vaults[0]!.id : null;
    return jsonResult({ vaults, default_vault_id: ctx.vaults.current ?? fallback });
  }));

  server.registerTool('create_vault', {
    title: 'Create a vault',
    description: 'Create a new vault (it gets its own encryption key). The agent that creates a vault manages it: it can store secrets there '
      + 'and grant access to it with grant_access. Plan limits apply.',
    inputSchema: {
      name: z.string().min(1).max(255).describe('A name for the vault, e.g. "staging" (names starting with "__" are reserved).'),
      description: z.string().max(2000).optional().describe('What the vault holds.'),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  }, handler(ctx, 'create_vault', async ({ name, description }) => jsonResult(await ctx.api.createVault(defined({ name, description }) as { name: string }))));

  server.registerTool('grant_access', {
    title: 'Grant access to a vault',
    description: 'Give a user or an agent of the organization permissions on secret paths of a vault (a policy). '
      + 'Only the vault\'s creator and the organization\'s owners and admins may do this.',
    inputSchema: {
      vault_id: z.string().uuid().describe('The vault to grant access to.'),
      principal_type: z.enum(['user', 'agent']).describe('Whether principal_id is a person (user) or an agent.'),
      principal_id: z.string().uuid().describe('The id of the user or agent receiving access.'),
      permissions: z.array(z.enum(['read', 'write', 'delete', 'rotate'])).min(1).optional()
        .describe('What they may do on matching paths (default ["read"]); write also covers delete and rotate.'),
      secret_path_pattern: z.string().min(1).max(512).optional()
        .describe('Paths the grant covers: "*" matches one segment, "**" any depth, e.g. "api-keys/**" (default "**": the whole vault).'),
      expires_at: z.string().optional().describe('ISO 8601 time when the grant ends; leave out for no end.'),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  }, handler(ctx, 'grant_access', async ({ vault_id, principal_type, principal_id, permissions, secret_path_pattern, expires_at }) =>
    jsonResult(await ctx.api.createPolicy(vault_id, defined({
      principal_type, principal_id, permissions: permissions ?? ['read'], secret_path_pattern: secret_path_pattern ?? '**', expires_at,
    })))));
}
