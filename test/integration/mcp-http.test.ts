// The MCP tool server's Streamable HTTP transport (MCP_TRANSPORT=http; spec §4.18, issue 15) in a
// process of its own, driven by the SDK's client against the stack's api: bearer auth per
// session with an ocv_ key (X-Agent-ID optional) or an agent JWT (X-Vault-ID), people's
// credentials refused, a session bound to its bearer, Origin checks, /health; the tools over
// HTTP with a policy refusal, a bad argument and a revoked key; the Intents tools against a real
// EVM node; the token refreshed before it expires; and the MCP Inspector's CLI over HTTP.
import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseEther } from 'viem';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { apiUrl, call, closeDb, db, eventually, signup } from '../helpers/api.ts';
import { agentJwt, patchAgent, registerAgent } from '../helpers/agent-fixtures.ts';
import { putOk } from '../helpers/vault-fixtures.ts';
import { intentsAgent, newAddress, balanceOf, startTestChain, type TestChain } from '../helpers/intents-chain.ts';
import {
  ALL_TOOLS, bearer, httpClient, mcpWorld, ok, problem, startHttpMcp, toolErrorText, type HttpMcpProcess, type McpWorld,
} from '../helpers/mcp-fixtures.ts';
import { projectRoot } from '../helpers/stack.ts';
import { AgentAuth } from '../../mcp/credentials.ts';

const ALLOWED_ORIGIN = 'http://allowed.example.test';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

let server: HttpMcpProcess;
let w: McpWorld;

beforeAll(async () => {
  w = await mcpWorld('mcp-http');
  // Billing has no API for tests: the Team plan's agent cap, for the agents this file registers.
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [w.owner.orgId]);
  await putOk(w.owner, w.vaultId, 'app/db-password', 'hunter2-over-http');
  await putOk(w.owner, w.vaultId, 'ops/root', 'owner-only-value');
  server = await startHttpMcp({ MCP_ALLOWED_ORIGINS: ALLOWED_ORIGIN });
});
afterAll(async () => {
  await server?.stop();
  await closeDb();
});

/** An initialize POST with a Host header of our choosing (fetch will not send one). */
function rawPost(url: string, headers: Record<string, string>): Promise<{ status: number; body: string; nosniff: string | undefined }> {
  const body = JSON.stringify(INIT);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body), ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode!, body: text, nosniff: res.headers['x-content-type-options'] as string | undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const post = (headers: Record<string, string>, body: unknown = INIT) => fetch(server.url, {
  method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body),
});

describe('the HTTP endpoint', () => {
  test('GET /health answers 200 without credentials; other paths are problems', async () => {
    const health = await fetch(new URL('/health', server.url));
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const other = await fetch(new URL('/nothing', server.url));
    expect(other.status).toBe(404);
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  test('no, malformed or a person\'s credentials: 401 with problem details and a Bearer challenge, nothing opened', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /Missing Authorization/],
      [{ authorization: 'Basic abc' }, /Malformed Authorization/],
      [bearer('xck_' + 'a'.repeat(43)), /Only an agent's credentials/],
      [bearer(w.owner.token), /Only an agent's credentials/],
      [bearer('ocv_' + 'a'.repeat(43)), /invalid, expired, rotated/],
      [bearer(w.agent.apiKey, { 'x-agent-id': '00000000-0000-4000-8000-000000000000' }), /invalid, expired, rotated/],
    ];
    for (const [headers, detail] of cases) {
      const r = await post(headers);
      expect([r.status, r.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
      expect(await r.json()).toMatchObject({ status: 401, title: 'Unauthorized', detail: expect.stringMatching(detail) });
    }
    expect(await (await fetch(new URL('/health', server.url))).json()).toMatchObject({ sessions: 0 });
  });

  test('a session is bound to the bearer that opened it; unknown sessions are 404; a non-initialize request without one is 400', async () => {
    const client = await httpClient(server.url, bearer(w.agent.apiKey));
    try {
      const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
      expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const other = await registerAgent(w.owner);
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
      const hijack = await post({ ...bearer(other.apiKey), 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, list);
      expect(hijack.status).toBe(401);
      expect(await hijack.json()).toMatchObject({ detail: expect.stringMatching(/other credentials/) });
      expect((await post({ ...bearer(w.agent.apiKey), 'mcp-session-id': '11111111-1111-4111-8111-111111111111' }, list)).status).toBe(404);
      expect((await post(bearer(w.agent.apiKey), list)).status).toBe(400);
      // The rightful bearer still works.
      expect((await client.listTools()).tools).toHaveLength(ALL_TOOLS.length);
    } finally {
      await client.close();
    }
  });

  test('a browser Origin other than MCP_ALLOWED_ORIGINS is refused (403); an allowed one opens a session', async () => {
    const evil = await post({ ...bearer(w.agent.apiKey), origin: 'http://evil.example.test' });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ detail: expect.stringMatching(/Origin/) });
    const allowed = await post({ ...bearer(w.agent.apiKey), origin: ALLOWED_ORIGIN });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    await allowed.body?.cancel();
  });

  test('a Host other than the server\'s own names is refused (DNS rebinding); every answer says nosniff', async () => {
    const port = new URL(server.url).port;
    const rebound = await rawPost(server.url, { host: `rebound.attacker.example:${port}`, ...bearer(w.agent.apiKey) });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toMatch(/Host rebound\.attacker\.example is not allowed/);
    expect(rebound.nosniff).toBe('nosniff');
    const own = await rawPost(server.url, { host: `localhost:${port}`, ...bearer(w.agent.apiKey) });
    expect(own.status).toBe(200);
    expect(own.nosniff).toBe('nosniff');
    const health = await fetch(new URL('/health', server.url));
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    await health.body?.cancel();
  });

  test('DELETE ends a session: later requests on it are 404', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: bearer(w.agent.apiKey) } });
    const client = new Client({ name: 'ending', version: '1' });
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    await client.close();
    const r = await post({ ...bearer(w.agent.apiKey), 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(r.status).toBe(404);
  });
});

describe('tools over HTTP', () => {
  test('with an ocv_ key: list, read, write within the policy; a refusal and a bad argument as tool errors', async () => {
    const client = await httpClient(server.url, bearer(w.agent.apiKey, { 'x-agent-id': w.agent.id }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
      expect(ok(await client.callTool({ name: 'list_vaults', arguments: {} })).default_vault_id).toBe(w.vaultId);
      expect(ok(await client.callTool({ name: 'get_secret', arguments: { path: 'app/db-password' } })).value).toBe('hunter2-over-http');
      expect(ok(await client.callTool({ name: 'put_secret', arguments: { path: 'app/new', value: 'written-over-http', type: 'password' } })).version).toBe(1);
      expect((await call('GET', `/v1/vaults/${w.vaultId}/secrets/app/new`, { token: w.owner.token })).body.value).toBe('written-over-http');
      const listed = ok(await client.callTool({ name: 'list_secrets', arguments: {} }));
      expect(listed.secrets.map((s: { path: string }) => s.path)).toEqual(['app/db-password', 'app/new']);
      const resource = JSON.parse(((await client.readResource({ uri: 'vault://secrets' })).contents[0] as { text: string }).text);
      expect(resource.secrets.map((s: { path: string }) => s.path)).toEqual(['app/db-password', 'app/new']);

      const refused = problem(await client.callTool({ name: 'get_secret', arguments: { path: 'ops/root' } }), 403);
      expect(JSON.stringify(refused)).not.toContain('owner-only-value');
      expect(toolErrorText(await client.callTool({ name: 'put_secret', arguments: { path: 'app/x' } }))).toMatch(/Input validation error.*value/s);
    } finally {
      await client.close();
    }
    expect(server.stderr()).not.toMatch(/hunter2-over-http|written-over-http|owner-only-value/);
    expect(server.stderr()).not.toContain(w.agent.apiKey);
  });

  test('with an agent JWT and X-Vault-ID: the tools act as that agent (no refresh: the JWT is used as it is)', async () => {
    const jwt = await agentJwt(w.agent);
    const client = await httpClient(server.url, bearer(jwt, { 'x-vault-id': w.vaultId }));
    try {
      expect(ok(await client.callTool({ name: 'describe_secret', arguments: { path: 'app/db-password' } }))).toMatchObject({ vault_id: w.vaultId, type: 'generic' });
      expect(ok(await client.callTool({ name: 'get_secret', arguments: { path: 'app/db-password' } })).value).toBe('hunter2-over-http');
    } finally {
      await client.close();
    }
  });

  test('two agents on one server: each session acts as its own agent', async () => {
    const other = await registerAgent(w.owner);
    const a = await httpClient(server.url, bearer(w.agent.apiKey));
    const b = await httpClient(server.url, bearer(other.apiKey));
    try {
      const [fromA, fromB] = await Promise.all([
        a.callTool({ name: 'get_secret', arguments: { path: 'app/db-password', vault_id: w.vaultId } }),
        b.callTool({ name: 'get_secret', arguments: { path: 'app/db-password', vault_id: w.vaultId } }),
      ]);
      expect(ok(fromA).value).toBe('hunter2-over-http');
      problem(fromB, 403); // no policy for the second agent
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('a key revoked mid-session: the next tool call is the API\'s 401 as a tool error', async () => {
    const victim = await registerAgent(w.owner);
    await call('POST', `/v1/vaults/${w.vaultId}/policies`, {
      token: w.owner.token, body: { secret_path_pattern: 'app/**', principal_type: 'agent', principal_id: victim.id, permissions: ['read'] },
    });
    const client = await httpClient(server.url, bearer(victim.apiKey));
    try {
      ok(await client.callTool({ name: 'list_secrets', arguments: {} }));
      expect((await patchAgent(w.owner, victim.id, { is_active: false })).status).toBe(200);
      expect(problem(await client.callTool({ name: 'list_secrets', arguments: {} }), 401).detail).toMatch(/deactivated/);
    } finally {
      await client.close();
    }
  });
});

describe('the token', () => {
  test('is exchanged again shortly before it expires, and not before', async () => {
    let now = Date.now();
    const auth = new AgentAuth(apiUrl(), { kind: 'key', apiKey: w.agent.apiKey, agentId: w.agent.id }, () => now);
    const first = await auth.token();
    expect(await auth.agentId()).toBe(w.agent.id);
    now += 3_600_000 - 61_000; // the default lifetime is one hour: still more than a minute left
    expect(await auth.token()).toBe(first);
    now += 2_000; // less than a minute left
    const second = await auth.token();
    expect(second).not.toBe(first);
    expect((await call('GET', '/v1/agents/me', { token: second })).body.id).toBe(w.agent.id);
    now += 1_000;
    expect(await auth.token()).toBe(second);
  });
});

describe('the Intents tools', () => {
  let chain: TestChain;
  beforeAll(async () => { chain = await startTestChain('intents-mcp-operator@ops.test'); });
  afterAll(() => chain?.node.stop());

  test('simulate_transaction, sign_transaction, submit_transaction with the agent\'s key; a guardrail refusal names itself', async () => {
    const owner = await signup('mcp-intents');
    const payer = await intentsAgent(owner, chain, parseEther('5'), { tx_max_value_eth: '1' });
    const client = await httpClient(server.url, bearer(payer.apiKey));
    const to = newAddress();
    try {
      const sim = ok(await client.callTool({ name: 'simulate_transaction', arguments: { chain: chain.name, to, value: '0.1' } }));
      expect(sim).toMatchObject({ status: 'success' });
      const signed = ok(await client.callTool({ name: 'sign_transaction', arguments: { chain: chain.name, to, value: '0.1' } }));
      expect(signed).toMatchObject({ status: 'sign_only', signed_tx: expect.stringMatching(/^0x/), tx_hash: expect.stringMatching(/^0x/) });
      const sent = ok(await client.callTool({ name: 'submit_transaction', arguments: { chain: chain.name, to, value: '0.25', idempotency_key: 'mcp-pay-1' } }));
      expect(sent).toMatchObject({ status: 'signed', from: payer.address, value_wei: parseEther('0.25').toString() });
      // The same idempotency key: the same transaction, not a second payment.
      const again = ok(await client.callTool({ name: 'submit_transaction', arguments: { chain: chain.name, to, value: '0.25', idempotency_key: 'mcp-pay-1' } }));
      expect(again.id).toBe(sent.id);
      await eventually('the transfer to be mined', async () => ((await balanceOf(chain.node, to)) === parseEther('0.25') ? true : undefined));
      const over = problem(await client.callTool({ name: 'submit_transaction', arguments: { chain: chain.name, to, value: '2' } }), 403);
      expect(over).toMatchObject({ type: 'guardrail_violation', guardrail: 'tx_max_value_eth' });
    } finally {
      await client.close();
    }
  });

  test('an agent without the Intents API gets the API\'s 403 from every transaction tool', async () => {
    const client = await httpClient(server.url, bearer(w.agent.apiKey));
    try {
      for (const name of ['simulate_transaction', 'sign_transaction', 'submit_transaction']) {
        problem(await client.callTool({ name, arguments: { chain: chain.name, to: newAddress(), value: '0.1' } }), 403);
      }
    } finally {
      await client.close();
    }
  });
});

describe('the MCP Inspector, command-line mode, over HTTP', () => {
  test('tools/list and tools/call with the key in an Authorization header', async () => {
    const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, npm_config_registry: 'http://127.0.0.1:9' };
    const inspect = (args: string[]) => promisify(execFile)('npx', [
      '--no-install', '@modelcontextprotocol/inspector', '--cli', server.url, '--transport', 'http', '--header', `Authorization: Bearer ${w.agent.apiKey}`, ...args,
    ], { cwd: projectRoot, env, maxBuffer: 8 << 20 });
    const listed = JSON.parse((await inspect(['--method', 'tools/list'])).stdout);
    expect(listed.tools.map((t: { name: string }) => t.name).sort()).toEqual(ALL_TOOLS);
    const called = JSON.parse((await inspect(['--method', 'tools/call', '--tool-name', 'list_secrets', '--tool-arg', 'prefix=app'])).stdout);
    expect(JSON.parse(called.content[0].text).secrets.map((s: { path: string }) => s.path)).toContain('app/db-password');
  });
});
