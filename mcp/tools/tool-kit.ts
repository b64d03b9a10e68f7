// What every tool shares: its context (the API as the agent, the vault choice, the log), the
// shape of a result, and the one way a failure reaches the assistant: an MCP tool error
// (isError) carrying the API's problem details, or the tool server's own short reason. Never a
// stack trace, an argument or a token; the log gets the tool's name and the status only.
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../api-error.ts';
import type { AgentAuth } from '../credentials.ts';
import type { McpLogger } from '../log.ts';
import type { VaultApi } from '../vault-api.ts';
import { ToolRefusal, type VaultChoice } from '../vault-choice.ts';

export type ToolContext = { api: VaultApi; vaults: VaultChoice; auth: AgentAuth; log: McpLogger };

/** The secret types the API accepts (domain/secrets/secret-types.ts; a unit test keeps the two equal). */
export const SECRET_TYPES = [
  'generic', 'password', 'api_key', 'certificate', 'private_key', 'ssh_key', 'env', 'env_bundle',
  'file', 'note', 'credential', 'payment_card', 'gift_card',
] as const;

export const vaultIdArg = z.string().uuid().optional()
  .describe('The vault to act on. Leave out to use the default vault (VAULT_ID, or the only vault this agent can use); list_vaults shows the choices.');
export const pathArg = z.string().min(1).max(1024)
  .describe('The secret\'s path inside the vault, segments separated by "/", e.g. "api-keys/openai" (no leading slash).');

/** A free-form JSON object; declared `additionalProperties: true` so clients see a deliberate "any members". */
export const jsonObjectArg = () => z.record(z.string(), z.unknown()).meta({ additionalProperties: true });

export const jsonResult = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] });

export function failureResult(e: unknown): CallToolResult {
  const text = e instanceof ApiError ? JSON.stringify(e.problem)
    : e instanceof ToolRefusal ? e.message
      : 'The tool failed unexpectedly; the tool server\'s log has the reason.';
  return { isError: true, content: [{ type: 'text', text }] };
}

/** A tool's handler with the failure handling and logging every tool gets. */
export function handler<A>(ctx: ToolContext, tool: string, fn: (args: A) => Promise<CallToolResult>): (args: A) => Promise<CallToolResult> {
  return async (args: A) => {
    try {
      const result = await fn(args);
      ctx.log.debug('tool call', { tool, outcome: 'ok' });
      return result;
    } catch (e) {
      if (e instanceof ApiError) ctx.log.info('tool call refused by the API', { tool, status: e.status });
      else if (e instanceof ToolRefusal) ctx.log.info('tool call refused', { tool });
      else ctx.log.error('tool call failed', { tool, error: e instanceof Error ? `${e.name}: ${e.message}` : 'unknown' });
      return failureResult(e);
    }
  };
}

/** Fields of `o` that are not undefined: optional arguments the assistant left out are not sent. */
export function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
