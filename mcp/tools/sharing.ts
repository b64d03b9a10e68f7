// share_secret: a time-limited share of one secret. The API decides who an agent may share
// with (its own human, `creator`); other recipients come back as its 403.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ToolRefusal } from '../vault-choice.ts';
import { defined, handler, jsonResult, vaultIdArg, type ToolContext } from './tool-kit.ts';

const DEFAULT_SHARE_HOURS = 24;
const LIST_PAGE = 500;

export function registerSharingTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool('share_secret', {
    title: 'Share a secret',
    description: 'Share one secret for a limited time and number of opens. An agent shares with its own human (recipient_type "creator", the default '
      + 'when no email is given); people can also share with a user or agent of the organization, an e-mail address, or anyone with the link. '
      + 'Name the secret by secret_id, or by path.',
    inputSchema: {
      secret_id: z.string().uuid().optional().describe('The secret\'s id (from list_secrets or describe_secret).'),
      path: z.string().min(1).max(1024).optional().describe('The secret\'s path, instead of secret_id.'),
      recipient_type: z.enum(['creator', 'user', 'agent', 'external_email', 'anyone_with_link']).optional()
        .describe('Who receives it; default "external_email" when email is given, otherwise "creator" (the agent\'s own human).'),
      recipient_id: z.string().uuid().optional().describe('For recipient_type user or agent: their id.'),
      email: z.string().email().optional().describe('For recipient_type external_email: the address that gets the link.'),
      expires_at: z.string().optional().describe(`ISO 8601 time when the share ends (at most 30 days ahead; default ${DEFAULT_SHARE_HOURS} hours from now).`),
      max_access_count: z.number().int().min(1).optional().describe('How many times the share may be opened.'),
      vault_id: vaultIdArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  }, handler(ctx, 'share_secret', async (a) => {
    let secretId = a.secret_id;
    if (!secretId) {
      if (!a.path) throw new ToolRefusal('Name the secret to share: pass secret_id, or path.');
      const vaultId = await ctx.vaults.resolve(a.vault_id);
      const page = await ctx.api.listSecrets(vaultId, { prefix: a.path, limit: LIST_PAGE });
      secretId = page.secrets.find((s) => s.path === a.path)?.id;
      if (!secretId) throw new ToolRefusal(`No secret this agent may read at "${a.path}" in vault ${vaultId}.`);
    }
    const expiresAt = a.expires_at ?? new Date(Date.now() + DEFAULT_SHARE_HOURS * 3_600_000).toISOString();
    const recipientType = a.recipient_type ?? (a.email ? 'external_email' : 'creator');
    return jsonResult(await ctx.api.shareSecret(secretId, defined({
      recipient_type: recipientType, recipient_id: a.recipient_id, email: a.email, expires_at: expiresAt, max_access_count: a.max_access_count,
    })));
  }));
}
