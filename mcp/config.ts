// The tool server's configuration, from the environment. Our own names first; the published
// 1Claw client's names (ONECLAW_*, MCP_TRANSPORT, PORT) are read too, so an existing MCP client
// configuration works after changing the base URL. A wrong value is named at start.
import { LOG_LEVELS, type LogLevel } from './log.ts';
import { AGENT_KEY_PREFIX, agentIdOfJwt } from './credentials.ts';

export type McpTransportKind = 'stdio' | 'http';

export type McpConfig = {
  /** The API's base URL without a trailing slash (a path prefix is kept). */
  apiUrl: string;
  /** Named in the key exchange when set (the API also finds the agent by its key alone). */
  agentId?: string;
  /** An `ocv_` key, exchanged for short-lived tokens. */
  agentKey?: string;
  /** A static agent JWT, used as it is (no refresh). */
  agentToken?: string;
  /** The default vault; otherwise the single vault the agent can see. */
  vaultId?: string;
  transport: McpTransportKind;
  host: string;
  port: number;
  /** Browser origins the HTTP transport accepts; requests with any other Origin get 403. */
  allowedOrigins: string[];
  /**
   * Host names (lower case, no port) the HTTP transport answers to; any other Host header gets
   * 403, so a DNS name rebound to this address cannot reach it from a browser page.
   */
  allowedHosts: string[];
  logLevel: LogLevel;
};

export class McpConfigError extends Error {}

export const DEFAULT_API_URL = 'http://127.0.0.1:8080';
export const DEFAULT_MCP_PORT = 8090;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Env = Record<string, string | undefined>;

/** The first of `names` that is set to something other than blank. */
function pick(env: Env, ...names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

function apiUrlOf(env: Env): string {
  const v = pick(env, 'VAULT_API_URL', 'ONECLAW_BASE_URL');
  if (!v) return DEFAULT_API_URL;
  let url: URL;
  try { url = new URL(v.value); } catch { throw new McpConfigError(`${v.name}: must be an http(s) URL such as https://vault.example.com`); }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new McpConfigError(`${v.name}: must be an http(s) URL`);
  if (url.username || url.password) throw new McpConfigError(`${v.name}: must not carry credentials`);
  if (url.search || url.hash) throw new McpConfigError(`${v.name}: must not have a query or fragment`);
  return url.href.replace(/\/+$/, '');
}

function uuidOf(env: Env, ...names: string[]): string | undefined {
  const v = pick(env, ...names);
  if (v && !UUID.test(v.value)) throw new McpConfigError(`${v.name}: must be a UUID`);
  return v?.value.toLowerCase();
}

function transportOf(env: Env): McpTransportKind {
  const v = pick(env, 'MCP_TRANSPORT');
  if (!v) return 'stdio';
  const t = v.value.toLowerCase();
  if (t === 'stdio') return 'stdio';
  // httpStream: the published client's name for the same Streamable HTTP transport.
  if (t === 'http' || t === 'httpstream' || t === 'streamable-http') return 'http';
  throw new McpConfigError('MCP_TRANSPORT: must be stdio or http (httpStream is read as http)');
}

function portOf(env: Env): number {
  const v = pick(env, 'MCP_PORT', 'PORT');
  if (!v) return DEFAULT_MCP_PORT;
  if (!/^\d{1,5}$/.test(v.value) || Number(v.value) > 65_535) throw new McpConfigError(`${v.name}: must be a port number (0 picks a free one)`);
  return Number(v.value);
}

function keyOf(env: Env): string | undefined {
  const v = pick(env, 'VAULT_AGENT_KEY', 'ONECLAW_AGENT_API_KEY');
  if (v && !v.value.startsWith(AGENT_KEY_PREFIX)) {
    throw new McpConfigError(`${v.name}: must be an agent key (${AGENT_KEY_PREFIX}…); the tool server acts as an agent, never with a person's key`);
  }
  return v?.value;
}

function tokenOf(env: Env): string | undefined {
  const v = pick(env, 'VAULT_AGENT_TOKEN', 'ONECLAW_AGENT_TOKEN');
  if (v && !agentIdOfJwt(v.value)) throw new McpConfigError(`${v.name}: must be an agent's access token (a JWT whose subject is agent:<id>)`);
  return v?.value;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** MCP_ALLOWED_HOSTS, or the names of the listen address: loopback names for a loopback or wildcard bind. */
function allowedHostsOf(env: Env, host: string): string[] {
  const listed = pick(env, 'MCP_ALLOWED_HOSTS');
  if (listed) {
    const names = listed.value.split(',').map((h) => h.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1')).filter(Boolean);
    const isName = (h: string) => /^[a-z0-9.-]+$/.test(h) || (/^[0-9a-f:.]+$/.test(h) && h.split(':').length > 2); // a name, or an IPv6 literal
    const bad = names.find((h) => !isName(h));
    if (bad !== undefined) throw new McpConfigError(`MCP_ALLOWED_HOSTS: ${JSON.stringify(bad)} is not a host name (give names without scheme or port)`);
    return names;
  }
  const h = host.toLowerCase();
  if (LOOPBACK_NAMES.includes(h) || h === '0.0.0.0' || h === '::' || h.startsWith('127.')) return [...new Set([...LOOPBACK_NAMES, h])].filter((n) => n !== '0.0.0.0' && n !== '::');
  return [h];
}

export function readMcpConfig(env: Env): McpConfig {
  const transport = transportOf(env);
  const agentKey = keyOf(env);
  const agentToken = tokenOf(env);
  if (transport === 'stdio' && !agentKey && !agentToken) {
    throw new McpConfigError('VAULT_AGENT_KEY (or ONECLAW_AGENT_API_KEY) is required for the stdio transport: the agent key the tools act with');
  }
  const level = (env.LOG_LEVEL?.trim() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(level)) throw new McpConfigError(`LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')}`);
  const host = pick(env, 'MCP_HOST')?.value ?? '127.0.0.1';
  return {
    apiUrl: apiUrlOf(env),
    agentId: uuidOf(env, 'VAULT_AGENT_ID', 'ONECLAW_AGENT_ID'),
    agentKey,
    agentToken,
    vaultId: uuidOf(env, 'VAULT_ID', 'ONECLAW_VAULT_ID'),
    transport,
    host,
    port: portOf(env),
    allowedOrigins: (pick(env, 'MCP_ALLOWED_ORIGINS')?.value ?? '').split(',').map((o) => o.trim()).filter(Boolean),
    allowedHosts: allowedHostsOf(env, host),
    logLevel: level,
  };
}
