// The MCP tool server's pure pieces: configuration from either set of variable names, the
// env-bundle parser, reading an agent id from a JWT, problem details from odd answers, the secret
// types kept equal to the API's, and the rule that it is a client of the HTTP API only.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { DEFAULT_API_URL, DEFAULT_MCP_PORT, McpConfigError, readMcpConfig } from '../../mcp/config.ts';
import { agentIdOfJwt } from '../../mcp/credentials.ts';
import { problemOf } from '../../mcp/api-error.ts';
import { parseEnvBundle } from '../../mcp/tools/secrets-read.ts';
import { hostNameOf } from '../../mcp/http-transport.ts';
import { SECRET_TYPES as MCP_SECRET_TYPES } from '../../mcp/tools/tool-kit.ts';
import { SECRET_TYPES } from '../../domain/secrets/secret-types.ts';

const KEY = `ocv_${'A'.repeat(43)}`;
const AGENT = '0d6a8a4e-3b1f-4c1e-9f43-2f6b2f0c1a11';
const VAULT = '6f1c9b7e-8a2d-4e0f-b1c3-5d7e9f0a2b4c';
const jwt = (claims: Record<string, unknown>) =>
  `${Buffer.from('{"alg":"EdDSA"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;

describe('readMcpConfig', () => {
  test('our names', () => {
    expect(readMcpConfig({
      VAULT_API_URL: 'https://vault.example.com/prefix/', VAULT_AGENT_ID: AGENT.toUpperCase(), VAULT_AGENT_KEY: KEY, VAULT_ID: VAULT,
      MCP_TRANSPORT: 'http', MCP_PORT: '9000', MCP_HOST: '0.0.0.0', MCP_ALLOWED_ORIGINS: 'http://a.test, http://b.test', LOG_LEVEL: 'warn',
    })).toEqual({
      apiUrl: 'https://vault.example.com/prefix', agentId: AGENT, agentKey: KEY, agentToken: undefined, vaultId: VAULT,
      transport: 'http', host: '0.0.0.0', port: 9000, allowedOrigins: ['http://a.test', 'http://b.test'], allowedHosts: ['localhost', '127.0.0.1', '::1'], logLevel: 'warn',
    });
  });

  test('the published client\'s names, and defaults', () => {
    expect(readMcpConfig({
      ONECLAW_BASE_URL: 'http://10.0.0.5:8080', ONECLAW_AGENT_ID: AGENT, ONECLAW_AGENT_API_KEY: KEY, ONECLAW_VAULT_ID: VAULT, MCP_TRANSPORT: 'httpStream', PORT: '8181',
    })).toMatchObject({ apiUrl: 'http://10.0.0.5:8080', agentId: AGENT, agentKey: KEY, vaultId: VAULT, transport: 'http', port: 8181, host: '127.0.0.1' });
    expect(readMcpConfig({ VAULT_AGENT_KEY: KEY })).toMatchObject({ apiUrl: DEFAULT_API_URL, transport: 'stdio', port: DEFAULT_MCP_PORT, logLevel: 'info', allowedOrigins: [] });
  });

  test('our name wins over the published one; blank counts as unset', () => {
    expect(readMcpConfig({ VAULT_API_URL: 'http://ours.test', ONECLAW_BASE_URL: 'http://theirs.test', VAULT_AGENT_KEY: KEY }).apiUrl).toBe('http://ours.test');
    expect(readMcpConfig({ VAULT_API_URL: ' ', ONECLAW_BASE_URL: 'http://theirs.test', VAULT_AGENT_KEY: KEY }).apiUrl).toBe('http://theirs.test');
  });

  test('a static agent JWT instead of a key; HTTP needs neither (each connection brings its own)', () => {
    const token = jwt({ sub: `agent:${AGENT}` });
    expect(readMcpConfig({ ONECLAW_AGENT_TOKEN: token })).toMatchObject({ agentToken: token, agentKey: undefined });
    expect(readMcpConfig({ MCP_TRANSPORT: 'http' })).toMatchObject({ transport: 'http', agentKey: undefined, agentToken: undefined });
  });

  test.each([
    [{}, /VAULT_AGENT_KEY \(or ONECLAW_AGENT_API_KEY\) is required/],
    [{ VAULT_AGENT_KEY: 'xck_abc' }, /VAULT_AGENT_KEY: must be an agent key/],
    [{ ONECLAW_AGENT_API_KEY: '1ck_abc' }, /ONECLAW_AGENT_API_KEY: must be an agent key/],
    [{ VAULT_AGENT_TOKEN: jwt({ sub: `user:${AGENT}` }) }, /VAULT_AGENT_TOKEN: must be an agent's access token/],
    [{ VAULT_AGENT_KEY: KEY, VAULT_API_URL: 'ftp://x' }, /VAULT_API_URL: must be an http\(s\) URL/],
    [{ VAULT_AGENT_KEY: KEY, VAULT_API_URL: 'https://u:p@x.test' }, /must not carry credentials/],
    [{ VAULT_AGENT_KEY: KEY, ONECLAW_BASE_URL: 'not a url' }, /ONECLAW_BASE_URL: must be an http\(s\) URL/],
    [{ VAULT_AGENT_KEY: KEY, VAULT_ID: 'prod' }, /VAULT_ID: must be a UUID/],
    [{ VAULT_AGENT_KEY: KEY, ONECLAW_AGENT_ID: 'bot' }, /ONECLAW_AGENT_ID: must be a UUID/],
    [{ VAULT_AGENT_KEY: KEY, MCP_TRANSPORT: 'sse' }, /MCP_TRANSPORT: must be stdio or http/],
    [{ VAULT_AGENT_KEY: KEY, MCP_PORT: '70000' }, /MCP_PORT: must be a port/],
    [{ VAULT_AGENT_KEY: KEY, LOG_LEVEL: 'loud' }, /LOG_LEVEL: must be one of/],
  ])('%j is refused, naming the variable', (env, message) => {
    expect(() => readMcpConfig(env as Record<string, string>)).toThrow(McpConfigError);
    expect(() => readMcpConfig(env as Record<string, string>)).toThrow(message);
  });
});

describe('parseEnvBundle', () => {
  test('KEY=VALUE lines; comments, blank lines and malformed lines skipped; export and quotes understood', () => {
    expect(parseEnvBundle('# c\nA=1\n\n  B = two words \nexport C="x=y"\nD=\'q\'\nnot a pair\n=nokey\nE=\r\nF="unclosed\n')).toEqual({
      vars: { A: '1', B: 'two words', C: 'x=y', D: 'q', E: '', F: '"unclosed' }, skipped: 2,
    });
  });

  test('any KEY=VALUE list round-trips', () => {
    const key = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,20}$/);
    const value = fc.stringMatching(/^[^\r\n"'\s#][^\r\n]{0,40}[^\r\n\s"']$/);
    fc.assert(fc.property(fc.dictionary(key, value, { maxKeys: 10 }), (vars) => {
      const text = Object.entries(vars).map(([k, v]) => `${k}=${v}`).join('\n');
      expect(parseEnvBundle(text)).toEqual({ vars, skipped: 0 });
    }));
  });
});

test('agentIdOfJwt reads agent subjects only', () => {
  expect(agentIdOfJwt(jwt({ sub: `agent:${AGENT}` }))).toBe(AGENT);
  expect(agentIdOfJwt(jwt({ sub: `user:${AGENT}` }))).toBeUndefined();
  expect(agentIdOfJwt(jwt({ sub: 'agent:nope' }))).toBeUndefined();
  expect(agentIdOfJwt('ocv_abc')).toBeUndefined();
  expect(agentIdOfJwt('a.b.c')).toBeUndefined();
});

test('problemOf keeps the API\'s problem members and never passes on a body that is not one', () => {
  expect(problemOf(403, 'Forbidden', { type: 'guardrail_violation', title: 'Forbidden', status: 403, detail: 'tx_max_value_eth: …', guardrail: 'tx_max_value_eth' }))
    .toEqual({ type: 'guardrail_violation', title: 'Forbidden', status: 403, detail: 'tx_max_value_eth: …', guardrail: 'tx_max_value_eth' });
  expect(problemOf(502, 'Bad Gateway', undefined)).toEqual({ type: 'about:blank', title: 'Bad Gateway', status: 502, detail: 'The API answered 502 without problem details' });
  expect(JSON.stringify(problemOf(500, '', ['<html>secret page</html>']))).not.toContain('secret page');
});

test('the tools offer exactly the secret types the API accepts', () => {
  expect([...MCP_SECRET_TYPES]).toEqual([...SECRET_TYPES]);
});

test('the tool server is a client of the HTTP API only: mcp/ imports nothing of domain/, db/ or the api itself', () => {
  const dir = path.join(__dirname, '..', '..', 'mcp');
  const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(10);
  for (const f of files) {
    const imports = [...fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
    const resolved = imports.filter((i) => i.startsWith('.')).map((i) => path.relative(dir, path.resolve(dir, path.dirname(f), i)));
    expect([f, resolved.filter((r) => r.startsWith('..'))]).toEqual([f, []]);
  }
});

describe('allowed Host names of the HTTP transport (DNS rebinding)', () => {
  const hosts = (env: Record<string, string>) => readMcpConfig({ VAULT_AGENT_KEY: KEY, MCP_TRANSPORT: 'http', ...env }).allowedHosts;

  test('by default the listen address\'s own names; loopback and wildcard binds answer to loopback names only', () => {
    expect(hosts({})).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(hosts({ MCP_HOST: '0.0.0.0' })).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(hosts({ MCP_HOST: 'mcp.internal.example' })).toEqual(['mcp.internal.example']);
  });

  test('MCP_ALLOWED_HOSTS lists names (case folded, IPv6 without brackets); a URL or a port is refused', () => {
    expect(hosts({ MCP_ALLOWED_HOSTS: 'MCP.Example.com, [::1], 10.0.0.7' })).toEqual(['mcp.example.com', '::1', '10.0.0.7']);
    expect(() => hosts({ MCP_ALLOWED_HOSTS: 'https://mcp.example.com' })).toThrow(/MCP_ALLOWED_HOSTS/);
    expect(() => hosts({ MCP_ALLOWED_HOSTS: 'mcp.example.com:8090' })).toThrow(/MCP_ALLOWED_HOSTS/);
  });
});

describe('hostNameOf', () => {
  test('strips the port and IPv6 brackets, folds case and a trailing dot', () => {
    expect(hostNameOf('127.0.0.1:8090')).toBe('127.0.0.1');
    expect(hostNameOf('[::1]:8090')).toBe('::1');
    expect(hostNameOf('LocalHost.')).toBe('localhost');
    expect(hostNameOf('rebound.attacker.example:8090')).toBe('rebound.attacker.example');
    expect(hostNameOf(undefined)).toBeNull();
    expect(hostNameOf(' ')).toBeNull();
  });
});
