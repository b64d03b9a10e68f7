// The MCP tool server under test, driven by the SDK's own client over both transports, against
// the stack's api: the stdio server is spawned as `sh bin/node24 workers/mcp.ts`, as an MCP
// client starts it; the HTTP server as the same entry point with MCP_TRANSPORT=http.
import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { apiUrl, call, signup, type Account } from './api.ts';
import { grantAgent, registerAgent, type Agent } from './agent-fixtures.ts';
import { newVault } from './vault-fixtures.ts';
import { projectRoot as ROOT } from './stack.ts';

export const NODE24 = ['bin/node24', 'workers/mcp.ts'];

/** Every tool the server offers (spec §4.18 plus the reference's extras our API has routes for). */
export const ALL_TOOLS = [
  'create_vault', 'delete_secret', 'describe_secret', 'get_approval_status', 'get_env_bundle', 'get_secret', 'grant_access',
  'list_approvals', 'list_automations', 'list_secrets', 'list_vaults', 'list_versions', 'put_secret', 'request_approval',
  'rotate_and_store', 'rotate_generate', 'share_secret', 'sign_transaction', 'simulate_transaction', 'submit_transaction',
  'treasury_list_proposals', 'treasury_propose', 'treasury_sign_proposal', 'trigger_automation',
];

export type McpWorld = { owner: Account; vaultId: string; agent: Agent };

/** An owner, a vault, and an agent with read and write on `app/**` of it (its only vault). */
export async function mcpWorld(tag: string, agentSettings: Record<string, unknown> = {}): Promise<McpWorld> {
  const owner = await signup(tag);
  const vaultId = await newVault(owner);
  const agent = await registerAgent(owner, agentSettings);
  await grantAgent(owner, vaultId, agent.id, 'app/**', ['read', 'write']);
  return { owner, vaultId, agent };
}

export type StdioMcp = { client: Client; stderr: () => string; pid: () => number | null; close(): Promise<void> };

/** A stdio server for `env` (VAULT_API_URL is the stack's) with the SDK's client connected to it. */
export async function stdioMcp(env: Record<string, string>): Promise<StdioMcp> {
  const transport = new StdioClientTransport({
    command: 'sh', args: NODE24, cwd: ROOT, stderr: 'pipe',
    env: { VAULT_API_URL: apiUrl(), LOG_LEVEL: 'debug', ...env },
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
  const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, pid: () => transport.pid, close: () => client.close() };
}

export const agentEnv = (w: { agent: Agent }, extra: Record<string, string> = {}) =>
  ({ VAULT_AGENT_ID: w.agent.id, VAULT_AGENT_KEY: w.agent.apiKey, ...extra });

export type HttpMcpProcess = { url: string; child: ChildProcess; stderr: () => string; stop(): Promise<void> };

/** The HTTP transport in a process of its own, on a free port; resolves once it listens. */
export function startHttpMcp(env: Record<string, string> = {}): Promise<HttpMcpProcess> {
  const child: ChildProcess = spawn('sh', NODE24, {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, VAULT_API_URL: apiUrl(), MCP_TRANSPORT: 'http', MCP_PORT: '0', LOG_LEVEL: 'debug', ...env },
  });
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (c: Buffer) => { stdout += c.toString('utf8'); });
  const stop = () => new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      const m = /"msg":"MCP tool server on HTTP","url":"([^"]+)"/.exec(stderr);
      if (m) resolve({ url: m[1]!, child, stderr: () => stderr + stdout, stop });
    });
    child.once('exit', (code) => reject(new Error(`the HTTP tool server exited (${code}) before listening:\n${stderr}`)));
  });
}

/** The SDK's Streamable HTTP client, connected with `headers` (Authorization and the rest). */
export async function httpClient(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export const bearer = (credential: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${credential}`, ...extra });

/** A successful tool result's JSON. */
export function ok<T = any>(r: unknown): T {
  const res = r as CallToolResult;
  const text = (res.content[0] as { type: 'text'; text: string }).text;
  if (res.isError) throw new Error(`expected success, got a tool error: ${text}`);
  return JSON.parse(text) as T;
}

/** A tool error's text (isError true). */
export function toolErrorText(r: unknown): string {
  const res = r as CallToolResult;
  expect(res.isError).toBe(true);
  expect(res.content).toHaveLength(1);
  return (res.content[0] as { type: 'text'; text: string }).text;
}

/** A tool error carrying the API's problem details, with `status`. */
export function problem(r: unknown, status: number): { type: string; title: string; status: number; detail: string; [k: string]: unknown } {
  const p = JSON.parse(toolErrorText(r));
  expect(p).toMatchObject({ status, title: expect.any(String), detail: expect.any(String), type: expect.any(String) });
  expect(JSON.stringify(p)).not.toMatch(/\n\s+at /); // never a stack trace
  return p;
}

/** A manual automation bound to `agentId` with one log step. */
export async function logAutomation(owner: Account, agentId: string): Promise<string> {
  const r = await call('POST', '/v1/automations', {
    token: owner.token, body: { name: `mcp-${agentId.slice(0, 6)}`, agent_id: agentId, trigger_type: 'manual', workflow_spec: { steps: [{ type: 'log', message: 'hello {{input.who}}' }] } },
  });
  expect(r.status).toBe(201);
  return r.body.id;
}
