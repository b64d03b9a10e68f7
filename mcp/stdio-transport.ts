// The stdio transport: one MCP session on this process's stdin and stdout, acting with the
// configured agent credentials. stdout carries protocol messages only; logs go to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiError } from './api-error.ts';
import type { McpConfig } from './config.ts';
import { AgentAuth, type AgentCredential } from './credentials.ts';
import type { McpLogger } from './log.ts';
import { buildMcpServer, toolContext } from './server.ts';
import { DRAIN_MS } from './http-transport.ts';

export function configuredCredential(config: McpConfig): AgentCredential {
  if (config.agentKey) return { kind: 'key', apiKey: config.agentKey, agentId: config.agentId };
  return { kind: 'jwt', token: config.agentToken! };
}

export type StdioSession = { stop(): Promise<void>; ended: Promise<void> };

export async function startStdio(config: McpConfig, log: McpLogger): Promise<StdioSession> {
  // A library that prints would corrupt the protocol stream: console output goes to stderr.
  for (const m of ['log', 'info', 'debug'] as const) console[m] = (...args: unknown[]) => console.error(...args);
  const auth = new AgentAuth(config.apiUrl, configuredCredential(config));
  const server = buildMcpServer(toolContext(config.apiUrl, auth, log, config.vaultId));
  const transport = new StdioServerTransport();
  let ended!: () => void;
  const endedPromise = new Promise<void>((resolve) => { ended = resolve; });
  transport.onclose = () => ended();
  process.stdin.once('end', () => ended());
  await server.connect(transport);
  // Requests read but not yet answered (tool calls under way): a stop lets them finish.
  const pending = new Set<string | number>();
  let drained: (() => void) | undefined;
  const onmessage = transport.onmessage;
  transport.onmessage = (message) => {
    if ('method' in message && 'id' in message) pending.add(message.id);
    onmessage?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    await send(message);
    if (!('method' in message) && 'id' in message && message.id !== undefined && pending.delete(message.id) && pending.size === 0) drained?.();
  };
  log.info('MCP tool server on stdio', { api_url: config.apiUrl, vault_id: config.vaultId ?? null });
  // Say early whether the credentials work (the tools report it too, with the API's reason).
  auth.token().then(
    async () => log.info('agent credentials accepted', { agent_id: await auth.agentId() }),
    (e: unknown) => log.warn('agent credentials refused', { status: e instanceof ApiError ? e.status : null, detail: e instanceof ApiError ? e.problem.detail : String(e) }),
  );
  return {
    stop: async () => {
      process.stdin.pause(); // no new requests are read: a client sees its session end after the last answer
      if (pending.size > 0) {
        await new Promise<void>((resolve) => { drained = resolve; setTimeout(resolve, DRAIN_MS).unref(); });
        if (pending.size > 0) log.warn('stopping with tool calls still running', { running: pending.size });
      }
      await server.close();
    },
    ended: endedPromise,
  };
}
