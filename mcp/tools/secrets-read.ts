// Reading secrets: list_secrets, describe_secret and list_versions show metadata only;
// get_secret and get_env_bundle are the only tools whose answers carry plaintext values.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SecretMeta } from '../vault-api.ts';
import { ToolRefusal } from '../vault-choice.ts';
import { handler, jsonResult, pathArg, vaultIdArg, type ToolContext } from './tool-kit.ts';

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
const LIST_PAGE = 500;
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** KEY=VALUE lines: blank lines and `#` comments skipped, `export ` allowed, matching outer quotes removed. */
export function parseEnvBundle(text: string): { vars: Record<string, string>; skipped: number } {
  const vars: Record<string, string> = {};
  let skipped = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const body = line.startsWith('export ') ? line.slice('export '.length).trimStart() : line;
    const eq = body.indexOf('=');
    const key = eq > 0 ? body.slice(0, eq).trim() : '';
    if (!ENV_KEY.test(key)) {
      skipped++; // never echoed: a malformed line may hold a value
      continue;
    }
    let value = body.slice(eq + 1).trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0]!)) value = value.slice(1, -1);
    vars[key] = value;
  }
  return { vars, skipped };
}

/** The latest version's metadata of `path`: from the listing, else from its versions (whose 403/404 the API words). */
async function describe(ctx: ToolContext, vaultId: string, path: string): Promise<SecretMeta> {
  const page = await ctx.api.listSecrets(vaultId, { prefix: path, limit: LIST_PAGE });
  const listed = page.secrets.find((s) => s.path === path);
  if (listed) return listed;
  const versions = await ctx.api.secretVersions(vaultId, path);
  return versions[0]!;
}

export function registerSecretReadTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool('list_secrets', {
    title: 'List secrets',
    description: 'List the secrets of the vault that this agent may read: path, type, version, expiry and metadata, never values. '
      + 'Use get_secret to read a value.',
    inputSchema: {
      prefix: z.string().max(512).optional().describe('Only paths under this folder, e.g. "api-keys" (matches api-keys and api-keys/…, not api-keys2).'),
      cursor: z.string().max(512).optional().describe('next_cursor from an earlier answer, for the next page.'),
      vault_id: vaultIdArg,
    },
    annotations: READ_ONLY,
  }, handler(ctx, 'list_secrets', async ({ prefix, cursor, vault_id }) => {
    const vaultId = await ctx.vaults.resolve(vault_id);
    const page = await ctx.api.listSecrets(vaultId, { prefix: prefix || undefined, cursor, limit: LIST_PAGE });
    return jsonResult({ vault_id: vaultId, secrets: page.secrets, next_cursor: page.next_cursor });
  }));

  server.registerTool('get_secret', {
    title: 'Read a secret',
    description: 'Read the decrypted value of a secret (the latest version, or `version`). The read is audited; '
      + 'use the value for the task at hand and do not repeat it back unless the user asks.',
    inputSchema: {
      path: pathArg,
      version: z.number().int().min(1).optional().describe('A specific version number; leave out for the latest.'),
      vault_id: vaultIdArg,
    },
    annotations: READ_ONLY,
  }, handler(ctx, 'get_secret', async ({ path, version, vault_id }) => {
    const vaultId = await ctx.vaults.resolve(vault_id);
    const s = await ctx.api.readSecret(vaultId, path, version);
    return jsonResult({ vault_id: vaultId, path: s.path, type: s.type, version: s.version, value: s.value });
  }));

  server.registerTool('describe_secret', {
    title: 'Describe a secret',
    description: 'Metadata of one secret without its value: type, current version, metadata, creation time and expiry. '
      + 'Use it to check that a secret exists before reading or rotating it.',
    inputSchema: { path: pathArg, vault_id: vaultIdArg },
    annotations: READ_ONLY,
  }, handler(ctx, 'describe_secret', async ({ path, vault_id }) => {
    const vaultId = await ctx.vaults.resolve(vault_id);
    return jsonResult({ vault_id: vaultId, ...await describe(ctx, vaultId, path) });
  }));

  server.registerTool('list_versions', {
    title: 'List the versions of a secret',
    description: 'Every version of a secret, newest first, with who wrote it and when; metadata only, never values.',
    inputSchema: { path: pathArg, vault_id: vaultIdArg },
    annotations: READ_ONLY,
  }, handler(ctx, 'list_versions', async ({ path, vault_id }) => {
    const vaultId = await ctx.vaults.resolve(vault_id);
    return jsonResult({ vault_id: vaultId, path, versions: await ctx.api.secretVersions(vaultId, path) });
  }));

  server.registerTool('get_env_bundle', {
    title: 'Read an environment bundle',
    description: 'Read a secret of type env_bundle (or env) holding KEY=VALUE lines, as an object of variables. '
      + 'Blank lines and # comments are skipped; `export KEY=…` and quoted values are understood.',
    inputSchema: { path: pathArg, vault_id: vaultIdArg },
    annotations: READ_ONLY,
  }, handler(ctx, 'get_env_bundle', async ({ path, vault_id }) => {
    const vaultId = await ctx.vaults.resolve(vault_id);
    // The type first, so a secret of another type is not read (reads count against a read cap).
    const meta = await describe(ctx, vaultId, path);
    if (meta.type !== 'env_bundle' && meta.type !== 'env') {
      throw new ToolRefusal(`The secret at "${path}" is of type ${meta.type}, not env_bundle: read it with get_secret instead.`);
    }
    const s = await ctx.api.readSecret(vaultId, path);
    const { vars, skipped } = parseEnvBundle(s.value);
    return jsonResult({ vault_id: vaultId, path: s.path, version: s.version, variables: vars, ...(skipped ? { lines_skipped: skipped } : {}) });
  }));
}
