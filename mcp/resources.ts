// The resource `vault://secrets`: the default vault's secrets as JSON, metadata only
// ({path, type, version, expires_at}), as the published tool server offers it.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from './tools/tool-kit.ts';

export const SECRETS_RESOURCE_URI = 'vault://secrets';
const MAX_LISTED = 5_000;
const PAGE = 500;

export function registerSecretsResource(server: McpServer, ctx: ToolContext): void {
  server.registerResource('secrets', SECRETS_RESOURCE_URI, {
    title: 'Secrets of the vault',
    description: 'The paths, types, versions and expiry of the secrets this agent may read in its default vault (never values).',
    mimeType: 'application/json',
  }, async (uri) => {
    const vaultId = await ctx.vaults.resolve();
    const secrets: { path: string; type: string; version: number; expires_at: string | null }[] = [];
    let cursor: string | undefined;
    do {
      const page = await ctx.api.listSecrets(vaultId, { cursor, limit: PAGE });
      for (const s of page.secrets) secrets.push({ path: s.path, type: s.type, version: s.version, expires_at: s.expires_at ?? null });
      cursor = page.next_cursor ?? undefined;
    } while (cursor && secrets.length < MAX_LISTED);
    const text = JSON.stringify({ vault_id: vaultId, secrets, ...(cursor ? { truncated: true } : {}) }, null, 2);
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text }] };
  });
}
