// Writing secrets: put_secret, rotate_and_store and rotate_generate each store a new version
// (answers show the version written, never the value); delete_secret soft-deletes a path.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SECRET_TYPES, defined, handler, jsonObjectArg, jsonResult, pathArg, vaultIdArg, type ToolContext } from './tool-kit.ts';

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

const typeArg = z.enum(SECRET_TYPES).optional()
  .describe('What the secret is: api_key, password, env_bundle (KEY=VALUE lines), private_key, certificate, note … Leave out to keep the current type (generic for a new secret).');
const valueArg = z.string().describe('The secret value to store (at most 256 KiB).');

export function registerSecretWriteTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool('put_secret', {
    title: 'Store a secret',
    description: 'Create a secret, or store a new version of an existing one, at a path. Needs write permission on the path. '
      + 'Answers with the version written (never the value).',
    inputSchema: {
      path: pathArg,
      value: valueArg,
      type: typeArg,
      metadata: jsonObjectArg().optional().describe('Free-form JSON object kept with the secret, e.g. {"owner": "ml-team"}. Never put secrets here.'),
      expires_at: z.string().optional().describe('ISO 8601 time after which reads answer 410 Gone, e.g. 2027-01-31T00:00:00Z.'),
      max_access_count: z.number().int().min(1).optional().describe('Reads allowed before the secret answers 410 Gone.'),
      vault_id: vaultIdArg,
    },
    annotations: WRITE,
  }, handler(ctx, 'put_secret', async ({ path, value, type, metadata, expires_at, max_access_count, vault_id }) => {
    const vaultId = await ctx.vaults.resolve(vault_id);
    const written = await ctx.api.writeSecret(vaultId, path, defined({ value, type, metadata, expires_at, max_access_count }));
    return jsonResult({ vault_id: vaultId, ...written });
  }));

  server.registerTool('rotate_and_store', {
    title: 'Rotate a secret to a value you supply',
    description: 'Store a new value for an existing secret as its next version (for example after regenerating an API key at its provider). '
      + 'Earlier versions stay readable by version number. Needs write permission.',
    inputSchema: { path: pathArg, value: valueArg, type: typeArg, vault_id: vaultIdArg },
    annotations: WRITE,
  }, handler(ctx, 'rotate_and_store', async ({ path, value, type, vault_id }) => {
    const vaultId = await ctx.vaults.resolve(vault_id);
    const written = await ctx.api.writeSecret(vaultId, path, defined({ value, type }));
    return jsonResult({ vault_id: vaultId, ...written });
  }));

  server.registerTool('rotate_generate', {
    title: 'Rotate a secret to a generated value',
    description: 'Have the vault generate a new random value for an existing secret and store it as the next version. '
      + 'The value is not returned (read it with get_secret when needed). Needs rotate or write permission.',
    inputSchema: {
      path: pathArg,
      length: z.number().int().min(8).max(1024).optional().describe('Characters to generate (8 to 1024; default 32).'),
      charset: z.enum(['hex', 'base64', 'alphanumeric', 'ascii']).optional().describe('Alphabet of the value (default hex; ascii is printable ASCII without space).'),
      type: typeArg,
      vault_id: vaultIdArg,
    },
    annotations: WRITE,
  }, handler(ctx, 'rotate_generate', async ({ path, length, charset, type, vault_id }) => {
    const vaultId = await ctx.vaults.resolve(vault_id);
    const written = await ctx.api.rotateSecret(vaultId, path, defined({ length, charset, type }));
    return jsonResult({ vault_id: vaultId, ...written });
  }));

  server.registerTool('delete_secret', {
    title: 'Delete a secret',
    description: 'Delete the secret at a path (all its versions; a soft delete that the audit log records). Needs delete or write permission. '
      + 'Ask the user before deleting.',
    inputSchema: { path: pathArg, vault_id: vaultIdArg },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  }, handler(ctx, 'delete_secret', async ({ path, vault_id }) => {
    const vaultId = await ctx.vaults.resolve(vault_id);
    await ctx.api.deleteSecret(vaultId, path);
    return jsonResult({ vault_id: vaultId, path, deleted: true });
  }));
}
