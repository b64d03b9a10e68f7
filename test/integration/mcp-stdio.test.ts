// The MCP tool server over stdio (spec §4.18, issue 15), spawned as an MCP client starts it
// (`sh bin/node24 workers/mcp.ts`) and driven by the SDK's own client against the stack's api:
// every tool's happy path where an agent is permitted (the owner sets up policies through the
// API), the secrets resource, a policy refusal and other API refusals surfacing as tool errors
// with the problem details, bad arguments, the vault choice, a revoked, an expired and a
// re-issued token, a log without values, and one session through the MCP Inspector's CLI mode.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { apiUrl, call, closeDb, eventually } from '../helpers/api.ts';
import { agentToken, auditFor, patchAgent, registerAgent } from '../helpers/agent-fixtures.ts';
import { putOk, rnd } from '../helpers/vault-fixtures.ts';
import {
  ALL_TOOLS, NODE24, agentEnv, logAutomation, mcpWorld, ok, problem, stdioMcp, toolErrorText, type McpWorld, type StdioMcp,
} from '../helpers/mcp-fixtures.ts';
import { projectRoot } from '../helpers/stack.ts';

const SECRET = 'sk-live-4f9c2e7d1b3a';

afterAll(() => closeDb());

describe('one assistant session within its agent\'s policy', () => {
  let w: McpWorld;
  let mcp: StdioMcp;
  beforeAll(async () => {
    w = await mcpWorld('mcp-stdio');
    await putOk(w.owner, w.vaultId, 'other/root-password', 'not-for-the-agent');
    mcp = await stdioMcp(agentEnv(w));
  });
  afterAll(() => mcp?.close());

  test('initialize names the server; tools/list has every tool with a description and a JSON schema; the secrets resource is listed', async () => {
    expect(mcp.client.getServerVersion()).toMatchObject({ name: 'ocv-vault' });
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
      for (const [name, prop] of Object.entries(t.inputSchema.properties ?? {})) {
        expect([name, (prop as { description?: string }).description]).toEqual([name, expect.stringMatching(/\w{4}/)]);
      }
    }
    const get = tools.find((t) => t.name === 'get_secret')!;
    expect(get.inputSchema.required).toEqual(['path']);
    expect(get.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((t) => t.name === 'delete_secret')!.annotations).toMatchObject({ destructiveHint: true });
    const { resources } = await mcp.client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: 'vault://secrets', mimeType: 'application/json' })]);
  });

  test('list_vaults: the one vault the agent may use, which is its default', async () => {
    const r = ok(await mcp.client.callTool({ name: 'list_vaults', arguments: {} }));
    expect(r.vaults.map((v: { id: string }) => v.id)).toEqual([w.vaultId]);
    expect(r.default_vault_id).toBe(w.vaultId);
  });

  test('put_secret, get_secret, describe_secret, list_secrets: stores, reads the value back, and lists metadata only', async () => {
    const put = ok(await mcp.client.callTool({
      name: 'put_secret', arguments: { path: 'app/openai', value: SECRET, type: 'api_key', metadata: { team: 'ml' } },
    }));
    expect(put).toMatchObject({ vault_id: w.vaultId, path: 'app/openai', type: 'api_key', version: 1, metadata: { team: 'ml' } });
    expect(JSON.stringify(put)).not.toContain(SECRET);

    const got = ok(await mcp.client.callTool({ name: 'get_secret', arguments: { path: 'app/openai' } }));
    expect(got).toEqual({ vault_id: w.vaultId, path: 'app/openai', type: 'api_key', version: 1, value: SECRET });
    // The owner sees what the agent stored.
    expect((await call('GET', `/v1/vaults/${w.vaultId}/secrets/app/openai`, { token: w.owner.token })).body.value).toBe(SECRET);

    const described = ok(await mcp.client.callTool({ name: 'describe_secret', arguments: { path: 'app/openai' } }));
    expect(described).toMatchObject({ vault_id: w.vaultId, path: 'app/openai', type: 'api_key', version: 1, id: put.id });
    expect(described).not.toHaveProperty('value');

    const listed = ok(await mcp.client.callTool({ name: 'list_secrets', arguments: { prefix: 'app' } }));
    expect(listed.secrets.map((s: { path: string }) => s.path)).toEqual(['app/openai']);
    expect(JSON.stringify(listed)).not.toContain(SECRET);
    // Without a prefix: only what the policy lets the agent read (other/… is the owner's alone).
    const all = ok(await mcp.client.callTool({ name: 'list_secrets', arguments: {} }));
    expect(all.secrets.map((s: { path: string }) => s.path)).toEqual(['app/openai']);
  });

  test('rotate_and_store, rotate_generate, list_versions: new versions, the generated value never in the answer', async () => {
    const rotated = ok(await mcp.client.callTool({ name: 'rotate_and_store', arguments: { path: 'app/openai', value: 'sk-live-rotated-0001' } }));
    expect(rotated).toMatchObject({ path: 'app/openai', version: 2, type: 'api_key' });
    const generated = ok(await mcp.client.callTool({ name: 'rotate_generate', arguments: { path: 'app/openai', length: 40, charset: 'alphanumeric' } }));
    expect(generated).toMatchObject({ path: 'app/openai', version: 3 });
    expect(generated).not.toHaveProperty('value');
    const now = ok(await mcp.client.callTool({ name: 'get_secret', arguments: { path: 'app/openai' } }));
    expect(now.value).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(JSON.stringify(generated)).not.toContain(now.value);
    const old = ok(await mcp.client.callTool({ name: 'get_secret', arguments: { path: 'app/openai', version: 2 } }));
    expect(old.value).toBe('sk-live-rotated-0001');
    const versions = ok(await mcp.client.callTool({ name: 'list_versions', arguments: { path: 'app/openai' } }));
    expect(versions.versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(JSON.stringify(versions)).not.toMatch(/sk-live/);
  });

  test('get_env_bundle: KEY=VALUE lines as variables, comments and blank lines skipped; another type is refused', async () => {
    const bundle = '# database\nDB_HOST=db.internal\n\nexport DB_PASSWORD="p@ss=word"\n  # indented comment\nAPI_URL=https://api.example.com/v1?x=1\n';
    ok(await mcp.client.callTool({ name: 'put_secret', arguments: { path: 'app/env', value: bundle, type: 'env_bundle' } }));
    const env = ok(await mcp.client.callTool({ name: 'get_env_bundle', arguments: { path: 'app/env' } }));
    expect(env).toEqual({
      vault_id: w.vaultId, path: 'app/env', version: 1,
      variables: { DB_HOST: 'db.internal', DB_PASSWORD: 'p@ss=word', API_URL: 'https://api.example.com/v1?x=1' },
    });
    expect(toolErrorText(await mcp.client.callTool({ name: 'get_env_bundle', arguments: { path: 'app/openai' } })))
      .toMatch(/type api_key, not env_bundle/);
  });

  test('the vault://secrets resource: paths, types, versions, expiry; never values', async () => {
    const r = await mcp.client.readResource({ uri: 'vault://secrets' });
    const body = JSON.parse((r.contents[0] as { text: string }).text);
    expect(body.vault_id).toBe(w.vaultId);
    expect(body.secrets).toEqual([
      { path: 'app/env', type: 'env_bundle', version: 1, expires_at: null },
      { path: 'app/openai', type: 'api_key', version: 3, expires_at: null },
    ]);
    expect(JSON.stringify(r)).not.toMatch(/sk-live|DB_PASSWORD/);
  });

  test('share_secret: by path, with the agent\'s own human (the default recipient); the answer holds the link, not the value', async () => {
    const shared = ok(await mcp.client.callTool({ name: 'share_secret', arguments: { path: 'app/openai', max_access_count: 2 } }));
    expect(shared).toMatchObject({ id: expect.any(String), recipient_type: 'creator', max_access_count: 2, share_url: expect.stringContaining(shared.id) });
    expect(new Date(shared.expires_at).getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const inbound = await call('GET', '/v1/shares/inbound', { token: w.owner.token });
    expect(inbound.body.shares.map((s: { id: string }) => s.id)).toContain(shared.id);
  });

  test('request_approval, get_approval_status: pending with its human; the human approves and the agent sees it', async () => {
    const requested = ok(await mcp.client.callTool({
      name: 'request_approval',
      arguments: { action: 'rotate_secret', target_type: 'secret', target_id: 'app/openai', summary: { why: 'leaked in a log' }, reason: 'leak', declared_risk_tier: 2 },
    }));
    expect(requested).toMatchObject({ status: 'pending', action: 'rotate_secret', risk_tier: 2, agent_id: w.agent.id, user_id: w.owner.userId });
    expect(ok(await mcp.client.callTool({ name: 'get_approval_status', arguments: { approval_id: requested.id } })))
      .toMatchObject({ approval_id: requested.id, status: 'pending' });
    // Risk tier 2: the human confirms with the password (X-Auth-Confirm).
    const decided = await call('POST', `/v1/approvals/${requested.id}/decide`, {
      token: w.owner.token, body: { decision: 'approve' }, headers: { 'x-auth-confirm': w.owner.password },
    });
    expect(decided.status).toBe(200);
    expect(ok(await mcp.client.callTool({ name: 'get_approval_status', arguments: { approval_id: requested.id } })).status).toBe('approved');
  });

  test('list_automations, trigger_automation: the agent\'s own automation, run with input', async () => {
    const automationId = await logAutomation(w.owner, w.agent.id);
    const listed = ok(await mcp.client.callTool({ name: 'list_automations', arguments: {} }));
    expect(listed.automations.map((a: { id: string }) => a.id)).toEqual([automationId]);
    const run = ok(await mcp.client.callTool({ name: 'trigger_automation', arguments: { automation_id: automationId, input: { who: 'mcp' } } }));
    expect(run).toMatchObject({ run_id: run.id, automation_id: automationId, agent_id: w.agent.id });
    await eventually('the run to succeed', async () => {
      const r = await call('GET', `/v1/automations/${automationId}/runs/${run.id}`, { token: w.owner.token });
      return r.body.status === 'success' ? true : undefined;
    });
  });

  test('delete_secret: gone for the agent and the owner (a later read is the API\'s 404)', async () => {
    expect(ok(await mcp.client.callTool({ name: 'delete_secret', arguments: { path: 'app/env' } }))).toEqual({ vault_id: w.vaultId, path: 'app/env', deleted: true });
    problem(await mcp.client.callTool({ name: 'get_secret', arguments: { path: 'app/env' } }), 404);
    expect((await call('GET', `/v1/vaults/${w.vaultId}/secrets/app/env`, { token: w.owner.token })).status).toBe(404);
  });

  test('a policy refusal is a tool error with the API\'s problem details: reading, writing and deleting outside app/**', async () => {
    const read = problem(await mcp.client.callTool({ name: 'get_secret', arguments: { path: 'other/root-password' } }), 403);
    expect(read).toMatchObject({ title: 'Forbidden', detail: expect.stringMatching(/read/) });
    expect(JSON.stringify(read)).not.toContain('not-for-the-agent');
    problem(await mcp.client.callTool({ name: 'put_secret', arguments: { path: 'other/x', value: 'v' } }), 403);
    problem(await mcp.client.callTool({ name: 'rotate_generate', arguments: { path: 'other/root-password' } }), 403);
    problem(await mcp.client.callTool({ name: 'delete_secret', arguments: { path: 'other/root-password' } }), 403);
    // Not the vault's creator: no policies for it on the owner's vault.
    problem(await mcp.client.callTool({
      name: 'grant_access', arguments: { vault_id: w.vaultId, principal_type: 'agent', principal_id: w.agent.id, permissions: ['read'] },
    }), 403);
    // Listing approvals is for people.
    expect(problem(await mcp.client.callTool({ name: 'list_approvals', arguments: {} }), 403).detail).toMatch(/agent/i);
  });

  test('bad arguments: the schema refuses before the API is asked; the API\'s own 400 comes back with its detail', async () => {
    expect(toolErrorText(await mcp.client.callTool({ name: 'get_secret', arguments: {} }))).toMatch(/Input validation error.*path/s);
    expect(toolErrorText(await mcp.client.callTool({ name: 'put_secret', arguments: { path: 'app/x', value: 'v', type: 'bogus' } })))
      .toMatch(/Input validation error.*type/s);
    expect(toolErrorText(await mcp.client.callTool({ name: 'get_approval_status', arguments: { approval_id: 'nope' } }))).toMatch(/approval_id/);
    expect(toolErrorText(await mcp.client.callTool({ name: 'no_such_tool', arguments: {} }))).toMatch(/no_such_tool not found/);
    // The API judges these: an empty path segment, and a share that ended yesterday.
    expect(problem(await mcp.client.callTool({ name: 'put_secret', arguments: { path: 'app//x', value: 'v' } }), 400).detail).toMatch(/segment/i);
    const past = new Date(Date.now() - 86_400_000).toISOString();
    expect(problem(await mcp.client.callTool({ name: 'share_secret', arguments: { path: 'app/openai', expires_at: past } }), 400).detail)
      .toMatch(/expires_at/);
  });

  test('create_vault, grant_access: the agent creates a vault and, as its creator, grants another agent on it', async () => {
    const vault = ok(await mcp.client.callTool({ name: 'create_vault', arguments: { name: rnd('agent-made'), description: 'made over MCP' } }));
    expect(vault).toMatchObject({ created_by: w.agent.id, created_by_type: 'agent', description: 'made over MCP' });
    const other = await registerAgent(w.owner);
    const policy = ok(await mcp.client.callTool({
      name: 'grant_access', arguments: { vault_id: vault.id, principal_type: 'agent', principal_id: other.id, permissions: ['read', 'write'], secret_path_pattern: 'ci/**' },
    }));
    expect(policy).toMatchObject({ vault_id: vault.id, principal_type: 'agent', principal_id: other.id, secret_path_pattern: 'ci/**', permissions: ['read', 'write'] });
    // Writing there by vault_id; the session's default vault stays the one it found first.
    ok(await mcp.client.callTool({ name: 'put_secret', arguments: { path: 'ci/token', value: 'ci-token-value', vault_id: vault.id } }));
    expect(ok(await mcp.client.callTool({ name: 'list_vaults', arguments: {} })).default_vault_id).toBe(w.vaultId);
  });

  test('the log on stderr names tools and statuses, never a value or the key', () => {
    const log = mcp.stderr();
    expect(log).toMatch(/"tool":"get_secret"/);
    expect(log).not.toContain(SECRET);
    expect(log).not.toMatch(/sk-live|ci-token-value|p@ss=word|not-for-the-agent/);
    expect(log).not.toContain(w.agent.apiKey);
    expect(log).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./); // no JWT
  });
});

describe('which vault', () => {
  test('several vaults and no VAULT_ID: the tool error names them; vault_id or VAULT_ID chooses', async () => {
    const w = await mcpWorld('mcp-vaults');
    const second = (await call('POST', '/v1/vaults', { token: w.owner.token, body: { name: 'second' } })).body.id as string;
    await call('POST', `/v1/vaults/${second}/policies`, {
      token: w.owner.token, body: { secret_path_pattern: '**', principal_type: 'agent', principal_id: w.agent.id, permissions: ['read', 'write'] },
    });
    const mcp = await stdioMcp(agentEnv(w));
    try {
      const text = toolErrorText(await mcp.client.callTool({ name: 'list_secrets', arguments: {} }));
      expect(text).toContain(w.vaultId);
      expect(text).toContain(second);
      expect(text).toMatch(/"second"/);
      expect(text).toMatch(/vault_id/);
      ok(await mcp.client.callTool({ name: 'put_secret', arguments: { path: 'x/y', value: 'in-second', vault_id: second } }));
      expect(ok(await mcp.client.callTool({ name: 'list_secrets', arguments: { vault_id: second } })).secrets).toHaveLength(1);
    } finally {
      await mcp.close();
    }
    const chosen = await stdioMcp(agentEnv(w, { VAULT_ID: second }));
    try {
      expect(ok(await chosen.client.callTool({ name: 'get_secret', arguments: { path: 'x/y' } })).value).toBe('in-second');
    } finally {
      await chosen.close();
    }
  });

  test('an agent without any vault is told to ask for one', async () => {
    const w = await mcpWorld('mcp-novault');
    const lonely = await registerAgent(w.owner);
    const mcp = await stdioMcp({ VAULT_AGENT_KEY: lonely.apiKey });
    try {
      expect(toolErrorText(await mcp.client.callTool({ name: 'list_secrets', arguments: {} }))).toMatch(/no vault yet.*create_vault/);
    } finally {
      await mcp.close();
    }
  });
});

describe('credentials', () => {
  test('the published client\'s variable names work (ONECLAW_*)', async () => {
    const w = await mcpWorld('mcp-oneclaw');
    await putOk(w.owner, w.vaultId, 'app/k', 'oneclaw-value');
    const mcp = await stdioMcp({ ONECLAW_BASE_URL: apiUrl(), ONECLAW_AGENT_ID: w.agent.id, ONECLAW_AGENT_API_KEY: w.agent.apiKey, ONECLAW_VAULT_ID: w.vaultId, VAULT_API_URL: '' });
    try {
      expect(ok(await mcp.client.callTool({ name: 'get_secret', arguments: { path: 'app/k' } })).value).toBe('oneclaw-value');
    } finally {
      await mcp.close();
    }
  });

  test('a token revoked by a scope change is exchanged again without the assistant noticing', async () => {
    const w = await mcpWorld('mcp-renew');
    await putOk(w.owner, w.vaultId, 'app/k', 'renewed-value');
    const mcp = await stdioMcp(agentEnv(w));
    try {
      ok(await mcp.client.callTool({ name: 'list_secrets', arguments: {} }));
      const exchanges = async () => (await auditFor(w.owner, 'auth.success', w.agent.id)).length;
      const before = await exchanges();
      // Explicit scopes end the agent's tokens at once (the API answers 401 to the old one).
      expect((await patchAgent(w.owner, w.agent.id, { scopes: ['app/**'] })).status).toBe(200);
      expect(ok(await mcp.client.callTool({ name: 'get_secret', arguments: { path: 'app/k' } })).value).toBe('renewed-value');
      expect(await exchanges()).toBe(before + 1);
      // The new token serves the next call as it is.
      ok(await mcp.client.callTool({ name: 'describe_secret', arguments: { path: 'app/k' } }));
      expect(await exchanges()).toBe(before + 1);
    } finally {
      await mcp.close();
    }
  });

  test('a revoked key: after rotation the old key\'s session gets the API\'s 401 as a tool error', async () => {
    const w = await mcpWorld('mcp-revoked');
    const mcp = await stdioMcp(agentEnv(w));
    try {
      ok(await mcp.client.callTool({ name: 'list_vaults', arguments: {} }));
      expect((await call('POST', `/v1/agents/${w.agent.id}/rotate-key`, { token: w.owner.token })).status).toBe(200);
      const p = problem(await mcp.client.callTool({ name: 'list_vaults', arguments: {} }), 401);
      expect(p.detail).toMatch(/invalid, expired, rotated/);
    } finally {
      await mcp.close();
    }
  });

  test('an expired key: every tool answers the API\'s 401', async () => {
    const w = await mcpWorld('mcp-expired');
    const soon = new Date(Date.now() + 2_000).toISOString();
    expect((await patchAgent(w.owner, w.agent.id, { api_key_expires_at: soon })).status).toBe(200);
    await eventually('the key to expire', async () => ((await agentToken(w.agent.apiKey)).status === 401 ? true : undefined));
    const mcp = await stdioMcp(agentEnv(w));
    try {
      expect(problem(await mcp.client.callTool({ name: 'get_secret', arguments: { path: 'app/k', vault_id: w.vaultId } }), 401).title).toBe('Unauthorized');
      problem(await mcp.client.callTool({ name: 'list_vaults', arguments: {} }), 401);
      expect(mcp.stderr()).toMatch(/"msg":"agent credentials refused","status":401/);
    } finally {
      await mcp.close();
    }
  });

  test('a person\'s key or a missing key stops the server at start, naming the variable', async () => {
    const run = (env: Record<string, string>) => promisify(execFile)('sh', NODE24, { cwd: projectRoot, env: { PATH: process.env.PATH, ...env } })
      .then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }));
    expect(await run({})).toEqual({ code: 1, stderr: expect.stringMatching(/VAULT_AGENT_KEY \(or ONECLAW_AGENT_API_KEY\) is required/) });
    expect(await run({ VAULT_AGENT_KEY: 'xck_abc' })).toEqual({ code: 1, stderr: expect.stringMatching(/VAULT_AGENT_KEY: must be an agent key/) });
    expect(await run({ VAULT_AGENT_KEY: 'ocv_x', VAULT_ID: 'prod' })).toEqual({ code: 1, stderr: expect.stringMatching(/VAULT_ID: must be a UUID/) });
  });
});

describe('the MCP Inspector, command-line mode', () => {
  // As a developer would run it: npx, the Inspector installed as a devDependency (no download),
  // on this Node 24 (the Inspector needs Node 22.19 or newer).
  const inspector = async (args: string[]) => {
    const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, npm_config_registry: 'http://127.0.0.1:9' };
    try {
      const r = await promisify(execFile)('npx', ['--no-install', '@modelcontextprotocol/inspector', '--cli', ...args], { cwd: projectRoot, env, maxBuffer: 8 << 20 });
      return { code: 0, out: r.stdout };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, out: err.stdout, err: err.stderr };
    }
  };

  test('tools/list and tools/call against the stdio server', async () => {
    const w = await mcpWorld('mcp-inspector');
    await putOk(w.owner, w.vaultId, 'app/inspected', 'inspector-value');
    const server = ['sh', ...NODE24, '-e', `VAULT_API_URL=${apiUrl()}`, '-e', `VAULT_AGENT_KEY=${w.agent.apiKey}`];
    const listed = await inspector([...server, '--method', 'tools/list']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out).tools.map((t: { name: string }) => t.name).sort()).toEqual(ALL_TOOLS);

    const read = await inspector([...server, '--method', 'tools/call', '--tool-name', 'get_secret', '--tool-arg', 'path=app/inspected']);
    expect(read.code).toBe(0);
    const result = JSON.parse(read.out);
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(result.content[0].text)).toMatchObject({ path: 'app/inspected', value: 'inspector-value' });

    const refused = await inspector([...server, '--method', 'tools/call', '--tool-name', 'get_secret', '--tool-arg', 'path=elsewhere/x']);
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(JSON.parse(refused.out).content[0].text)).toMatchObject({ status: 403, title: 'Forbidden' });
  });
});
