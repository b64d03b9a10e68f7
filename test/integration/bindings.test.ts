// Execution bindings (issue 14 §2) over real HTTP, against a fake outside API on 127.0.0.1 that
// records what it receives and echoes it (and, when told, the credential itself in every
// spelling) back: CRUD and who may call; the credential arriving as configured and absent from
// every answer of ours, from execution events, the audit log, the binding rows and the logs;
// vault_ref credentials read with the agent's own permissions; guardrails (traversal, methods,
// body size, rate per minute) refusing before anything is sent; SSRF refusals; the plan gate.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { call, closeDb, db, joinAsMember, signup, type Account, type Res } from '../helpers/api.ts';
import { agentJwt, auditFor, patchAgent, registerAgent, type Agent } from '../helpers/agent-fixtures.ts';
import { isProblem, newVault, putOk } from '../helpers/vault-fixtures.ts';
import { startFakeBindingApi, type FakeBindingApi } from '../helpers/fake-binding-api.ts';

/** Every credential this file hands out, with every spelling that must never come back. */
const spellings: string[] = [];
function credential(tag: string, special = false): string {
  const c = `${tag}_${special ? 'q+k/y=' : ''}${randomBytes(12).toString('hex')}`;
  const b = Buffer.from(c);
  spellings.push(c, b.toString('base64').replace(/=+$/, ''), b.toString('base64url'), encodeURIComponent(c), new URLSearchParams({ x: c }).toString().slice(2));
  return c;
}
function leaks(text: string): string[] {
  return spellings.filter((s) => text.includes(s));
}

/** `call`, and the answer (body and headers) must not carry any credential in any spelling. */
async function api(method: string, url: string, opts: { token?: string; body?: unknown; raw?: string } = {}): Promise<Res> {
  const r = await call(method, url, opts);
  expect(leaks(r.text + JSON.stringify([...r.headers]))).toEqual([]);
  return r;
}

const bindingsUrl = (agentId: string) => `/v1/agents/${agentId}/bindings`;
const create = (token: string, agentId: string, body: unknown) => api('POST', bindingsUrl(agentId), { token, body });
const execute = (token: string, agentId: string, body: unknown) => api('POST', `/v1/agents/${agentId}/execute`, { token, body });
const get = (token: string, agentId: string, id: string) => api('GET', `${bindingsUrl(agentId)}/${id}`, { token });
const testBinding = (token: string, agentId: string, id: string, body?: unknown) => api('POST', `${bindingsUrl(agentId)}/${id}/test`, { token, body });

let fake: FakeBindingApi;
let owner: Account;
let member: Account;
let stranger: Account;
let agent: Agent;
let agentToken: string;
let sibling: Agent;
let siblingToken: string;

async function binding(body: Record<string, unknown>): Promise<any> {
  const r = await create(owner.token, agent.id, { binding_type: 'http', ...body, name: body.name ?? `b-${randomBytes(4).toString('hex')}` });
  expect(r.status).toBe(201);
  return r.body;
}

const http = (method: string, p: string, extra: Record<string, unknown> = {}) => ({ method, path: p, ...extra });

beforeAll(async () => {
  fake = await startFakeBindingApi();
  owner = await signup('bind-owner');
  member = await joinAsMember(owner, 'bind-member');
  stranger = await signup('bind-stranger');
  for (const a of [owner, stranger]) await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [a.orgId]);
  agent = await registerAgent(owner, { execution_intents_enabled: true });
  agentToken = await agentJwt(agent);
  sibling = await registerAgent(owner, { execution_intents_enabled: true });
  siblingToken = await agentJwt(sibling);
});
afterAll(async () => {
  await fake?.close();
  await closeDb();
});
beforeEach(() => {
  fake.clear();
  fake.leak(null);
  fake.respond(null);
});

describe('the agent switch', () => {
  test('execution_intents_enabled: off by default, set on create and PATCH, shown on every read; execution_guardrails checked', async () => {
    expect(agent.body.agent).toMatchObject({ execution_intents_enabled: true, execution_guardrails: {} });
    const plain = await registerAgent(owner);
    expect(plain.body.agent.execution_intents_enabled).toBe(false);
    const on = await patchAgent(owner, plain.id, { execution_intents_enabled: true, execution_guardrails: { max_requests_per_minute: 30, allowed_methods: ['get'] } });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ execution_intents_enabled: true, execution_guardrails: { max_requests_per_minute: 30, allowed_methods: ['GET'] } });
    expect((await call('GET', `/v1/agents/${plain.id}`, { token: owner.token })).body.execution_intents_enabled).toBe(true);
    const typo = await patchAgent(owner, plain.id, { execution_guardrails: { max_request_per_minute: 5 } });
    isProblem(typo, 400);
    expect(typo.body.detail).toContain('execution_guardrails');
    isProblem(await patchAgent(owner, plain.id, { execution_intents_enabled: 'yes' }), 400);
    expect((await call('PATCH', `/v1/agents/${plain.id}`, { token: member.token, body: { execution_intents_enabled: false } })).status).toBe(403);
  });
});

describe('managing bindings', () => {
  test('owners create; the answer shows where the credential comes from, never the credential', async () => {
    const cred = credential('crud');
    const r = await create(owner.token, agent.id, {
      name: 'crm', binding_type: 'http', credential: { token: cred },
      config: { base_url: `${fake.url}/api/`, allowed_methods: ['get', 'POST'], allowed_paths: ['/public/**'], headers: { 'X-Client': 'vault' }, auth: { type: 'header', name: 'X-Api-Key' } },
      guardrails: { max_body_bytes: 1024, max_requests_per_minute: 100 },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String), agent_id: agent.id, binding_type: 'http', name: 'crm',
      config: { base_url: `${fake.url}/api`, allowed_methods: ['GET', 'POST'], allowed_paths: ['/public/**'], headers: { 'X-Client': 'vault' }, auth: { type: 'header', name: 'X-Api-Key' } },
      guardrails: { max_body_bytes: 1024, max_requests_per_minute: 100 }, is_active: true,
      credential_set: true, credential_source_type: 'inline', credential_vault_id: null, credential_path: null,
      created_at: expect.any(String), updated_at: expect.any(String),
    });
    expect(await auditFor(owner, 'binding.create', r.body.id)).toHaveLength(1);
    // The credential is a secret of the reserved vault, encrypted: not in the row, not in the clear.
    const row = await db().query('SELECT row_to_json(b)::text AS t FROM execution_bindings b WHERE id = $1', [r.body.id]);
    expect(leaks(row.rows[0].t)).toEqual([]);
    const stored = await db().query(
      `SELECT sv.ciphertext FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id JOIN vaults v ON v.id = s.vault_id
       WHERE v.org_id = $1 AND v.kind = 'agent_keys' AND s.path = $2`, [owner.orgId, `agents/${agent.id}/bindings/${r.body.id}/credential`]);
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].ciphertext.includes(Buffer.from(cred))).toBe(false);

    // Humans of the organization and the agent itself read it; a sibling agent 403, another organization 404.
    for (const token of [owner.token, member.token, agentToken]) {
      expect((await get(token, agent.id, r.body.id)).body).toEqual(r.body);
      expect((await api('GET', bindingsUrl(agent.id), { token })).body.bindings.map((b: any) => b.id)).toContain(r.body.id);
    }
    isProblem(await get(siblingToken, agent.id, r.body.id), 403);
    isProblem(await api('GET', bindingsUrl(agent.id), { token: siblingToken }), 403);
    isProblem(await get(stranger.token, agent.id, r.body.id), 404);
    isProblem(await get(owner.token, agent.id, 'not-a-binding'), 404);
    isProblem(await get(owner.token, sibling.id, r.body.id), 404);

    // Writes: owners and admins only.
    const body = { name: 'x', binding_type: 'http', config: { base_url: fake.url } };
    for (const token of [member.token, agentToken]) isProblem(await create(token, agent.id, body), 403);
    isProblem(await create(stranger.token, agent.id, body), 404);
    isProblem(await create(owner.token, agent.id, { ...body, name: 'crm' }), 409);
    for (const token of [member.token, agentToken]) {
      isProblem(await api('PATCH', `${bindingsUrl(agent.id)}/${r.body.id}`, { token, body: { is_active: false } }), 403);
      isProblem(await api('DELETE', `${bindingsUrl(agent.id)}/${r.body.id}`, { token }), 403);
      isProblem(await api('POST', `${bindingsUrl(agent.id)}/${r.body.id}/rotate-credential`, { token, body: { credential: credential('nope') } }), 403);
    }

    // PATCH replaces config and guardrails whole; the credential stays.
    const patched = await api('PATCH', `${bindingsUrl(agent.id)}/${r.body.id}`, {
      token: owner.token, body: { config: { base_url: fake.url, auth: { type: 'bearer' } }, guardrails: {}, is_active: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ config: { base_url: fake.url, auth: { type: 'bearer' } }, guardrails: {}, is_active: false, credential_set: true });
  });

  test('bad input is a 400 naming the field, before anything is stored', async () => {
    const base = { name: 'bad', binding_type: 'http', config: { base_url: fake.url } };
    const cases: [unknown, string][] = [
      [{ ...base, binding_type: 'graphql' }, 'not supported yet'],
      [{ ...base, binding_type: 'ftp' }, 'binding_type'],
      [{ ...base, config: { base_url: 'https://10.0.0.1' } }, 'config.base_url'],
      [{ ...base, config: { base_url: 'http://192.168.0.10:8080/api' } }, 'config.base_url'],
      [{ ...base, config: { base_url: 'https://169.254.169.254/latest' } }, 'config.base_url'],
      [{ ...base, config: { base_url: 'http://api.example.com' } }, 'https is required'],
      [{ ...base, config: { base_url: 'https://user:pw@api.example.com' } }, 'config.base_url'],
      [{ ...base, config: { base_url: `${fake.url}/?a=1` } }, 'config.base_url'],
      [{ ...base, config: { base_url: fake.url, max_request_per_minute: 1 } }, 'config'],
      [{ ...base, guardrails: { max_request_per_minute: 1 } }, 'guardrails'],
      [{ ...base, config: { base_url: fake.url, allowed_paths: ['/a/../b'] } }, 'config.allowed_paths'],
      [{ ...base, config: { base_url: fake.url, allowed_methods: ['TRACE'] } }, 'config.allowed_methods'],
      [{ ...base, config: { base_url: fake.url, headers: { Host: 'evil' } } }, 'config.headers'],
      [{ ...base, config: { base_url: fake.url, auth: { type: 'bearer' } } }, 'config.auth'],
      [{ ...base, config: { base_url: fake.url, headers: { Authorization: 'x' } }, credential: credential('clash') }, 'config.headers.Authorization'],
      [{ ...base, credential: 'short' }, 'credential'],
      [{ ...base, credential: { a: 'one-long-value', b: 'two-long-value' } }, 'credential'],
      [{ ...base, credential: credential('both'), credential_source: { type: 'inline', value: credential('both2') } }, 'credential_source'],
      [{ ...base, credential_source: { type: 'vault_ref', vault_id: crypto.randomUUID(), path: 'x' } }, 'credential_source.vault_id'],
      [{ ...base, name: crypto.randomUUID() }, 'name'],
    ];
    for (const [body, field] of cases) {
      const r = await create(owner.token, agent.id, body);
      isProblem(r, 400);
      expect({ body, detail: r.body.detail }).toEqual({ body, detail: expect.stringContaining(field) });
    }
    const strangerVault = await newVault(stranger);
    const r = await create(owner.token, agent.id, { ...base, credential_source: { type: 'vault_ref', vault_id: strangerVault, path: 'x' } });
    isProblem(r, 400);
    expect((await api('GET', bindingsUrl(agent.id), { token: owner.token })).body.bindings.map((b: any) => b.name)).not.toContain('bad');
  });

  test('a plan without Execution Intents (free) cannot create bindings', async () => {
    const free = await signup('bind-free');
    const a = await registerAgent(free, { execution_intents_enabled: true });
    const r = await create(free.token, a.id, { name: 'x', binding_type: 'http', config: { base_url: fake.url } });
    isProblem(r, 403, 'plan_feature_unavailable');
    expect(r.body.detail).toContain('pro');
  });

  test('delete: 204, then 404; an inline credential is erased', async () => {
    const b = await binding({ config: { base_url: fake.url }, credential: credential('del') });
    expect((await api('DELETE', `${bindingsUrl(agent.id)}/${b.id}`, { token: owner.token })).status).toBe(204);
    isProblem(await get(owner.token, agent.id, b.id), 404);
    isProblem(await api('DELETE', `${bindingsUrl(agent.id)}/${b.id}`, { token: owner.token }), 404);
    const left = await db().query(
      `SELECT count(*)::int AS n FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id WHERE s.path = $1 AND octet_length(sv.ciphertext) > 0`,
      [`agents/${agent.id}/bindings/${b.id}/credential`]);
    expect(left.rows[0].n).toBe(0);
  });
});

describe('executing', () => {
  test('each auth type: the credential arrives as configured, and every echo of it comes back redacted', async () => {
    const kinds: [Record<string, unknown>, (c: string, got: any) => void][] = [
      [{}, (c, got) => expect(got.headers.authorization).toBe(`Bearer ${c}`)],
      [{ type: 'header', name: 'X-Api-Key', prefix: 'Key ' }, (c, got) => expect(got.headers['x-api-key']).toBe(`Key ${c}`)],
      [{ type: 'query', name: 'api_key' }, (c, got) => expect(got.query.api_key).toBe(c)],
      [{ type: 'basic', username: 'svc' }, (c, got) => expect(got.headers.authorization).toBe(`Basic ${Buffer.from(`svc:${c}`).toString('base64')}`)],
    ];
    for (const [auth, arrived] of kinds) {
      const cred = credential('exec', auth.type === 'query');
      if (auth.type === 'basic') spellings.push(Buffer.from(`svc:${cred}`).toString('base64').replace(/=+$/, ''));
      const b = await binding({
        config: { base_url: `${fake.url}/v1`, allowed_methods: ['GET', 'POST'], headers: { 'X-Static': 'yes' }, ...(auth.type ? { auth } : {}) },
        credential_source: { type: 'inline', value: cred },
      });
      fake.clear();
      fake.leak(cred);
      const r = await execute(agentToken, agent.id, { binding: b.name, intent_type: 'http_request', params: http('get', '/echo/x', { query: { q: 'a b' }, headers: { 'X-Trace': 't1' } }) });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ execution_id: expect.any(String), status: 'success', error: null, execution_surface: 'vault' });
      expect(r.body.result.status).toBe(200);
      expect(r.body.result.body).toContain('[REDACTED]');
      expect(r.body.result.headers['x-leaked-token']).toBe('[REDACTED]');
      expect(r.body.redactions_applied).toBeGreaterThanOrEqual(8);
      const got = fake.received();
      expect(got).toHaveLength(1);
      expect(got[0]!.method).toBe('GET');
      expect(got[0]!.path).toBe('/v1/echo/x');
      expect(got[0]!.query.q).toBe('a b');
      expect(got[0]!.headers['x-static']).toBe('yes');
      expect(got[0]!.headers['x-trace']).toBe('t1');
      arrived(cred, got[0]);
      // By id as well as by name; a JSON body goes out as JSON.
      const post = await execute(agentToken, agent.id, { binding: b.id, intent_type: 'http_request', params: http('POST', '/echo/y', { body: { n: 1 } }) });
      expect(post.body.status).toBe('success');
      expect(fake.received()[1]).toMatchObject({ method: 'POST', body: '{"n":1}', headers: { 'content-type': 'application/json' } });
    }
  });

  test('guardrails refuse before anything is sent: traversal in every spelling, methods, paths, body size', async () => {
    const b = await binding({
      config: { base_url: `${fake.url}/api`, allowed_methods: ['GET', 'POST'], allowed_paths: ['/public/**'] },
      guardrails: { max_body_bytes: 64 }, credential: credential('guard'),
    });
    const refused = async (params: Record<string, unknown>, status: number, mention: string) => {
      const r = await execute(agentToken, agent.id, { binding: b.name, intent_type: 'http_request', params });
      isProblem(r, status, 'guardrail_violation');
      expect({ path: params.path, detail: r.body.detail }).toEqual({ path: params.path, detail: expect.stringContaining(mention) });
      expect(r.body.guardrail_violation.reason_code).toEqual(expect.any(String));
    };
    for (const p of [
      '/public/../admin', '/public/%2e%2e/admin', '/public/%2E%2e/admin', '/public/.%2e/admin', '/public/..%2fadmin', '/public/%2fadmin',
      '/public//admin', '//127.0.0.2/x', '/public\\..\\admin', '/public/%5c..%5cadmin', '/public/..;/admin', '/public/%252e%252e/admin',
      '/public/\uff0e\uff0e/admin', '/public/%c0%ae%c0%ae/admin', '/public/x?admin=1', '/admin', '/', '/publicity', '/Public/x',
    ]) await refused(http('GET', p), 403, 'allowed_paths');
    for (const m of ['DELETE', 'PUT', 'patch']) await refused(http(m, '/public/x'), 403, 'allowed_methods');
    await refused(http('POST', '/public/x', { body: 'x'.repeat(65) }), 413, 'max_body_bytes');
    await refused(http('POST', '/public/x', { body: { pad: 'x'.repeat(60) } }), 413, 'max_body_bytes');
    expect(fake.received()).toEqual([]);
    // The caller cannot set what the binding sets (the credential's header), nor send a bad request.
    isProblem(await execute(agentToken, agent.id, { binding: b.name, intent_type: 'http_request', params: http('GET', '/public/x', { headers: { Authorization: 'Bearer mine' } }) }), 400);
    isProblem(await execute(agentToken, agent.id, { binding: b.name, intent_type: 'http_request', params: http('GET', '/public/x', { url: 'https://evil.example' }) }), 400);
    isProblem(await execute(agentToken, agent.id, { binding: b.name, intent_type: 'graphql_query', params: http('GET', '/public/x') }), 400);
    isProblem(await execute(agentToken, agent.id, { binding: b.name, intent_type: 'http_request', execution_mode: 'tee', params: http('GET', '/public/x') }), 400);
    isProblem(await execute(agentToken, agent.id, { binding: 'no-such-binding', intent_type: 'http_request', params: http('GET', '/public/x') }), 404);
    expect(fake.received()).toEqual([]);
    // Inside the rules it goes out, exactly to the canonical path under the base URL.
    const ok = await execute(agentToken, agent.id, { binding: b.name, intent_type: 'http_request', params: http('POST', 'public/%61/b/', { body: 'x'.repeat(64) }) });
    expect(ok.body.status).toBe('success');
    expect(fake.received().map((x) => x.target)).toEqual(['/api/public/a/b/']);
  });

  test('max_requests_per_minute: never more sent than the cap allows per minute, 429 with Retry-After', async () => {
    const b = await binding({ config: { base_url: fake.url }, guardrails: { max_requests_per_minute: 2 }, credential: credential('rate') });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await execute(agentToken, agent.id, { binding: b.name, intent_type: 'http_request', params: http('GET', '/r') });
      statuses.push(r.status);
      if (r.status === 429) {
        isProblem(r, 429, 'guardrail_violation');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(r.body.detail).toContain('max_requests_per_minute');
      }
    }
    // Five calls span at most two calendar minutes: at most four get through.
    const sent = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThanOrEqual(4);
    expect(fake.received()).toHaveLength(sent);
  });

  test('only the agent itself, with execution_intents_enabled on, on its own bindings', async () => {
    const b = await binding({ config: { base_url: fake.url }, credential: credential('who') });
    const body = { binding: b.name, intent_type: 'http_request', params: http('GET', '/w') };
    isProblem(await execute(owner.token, agent.id, body), 403);
    isProblem(await execute(member.token, agent.id, body), 403);
    isProblem(await execute(siblingToken, agent.id, body), 403);
    isProblem(await execute(siblingToken, sibling.id, body), 404); // the sibling has no such binding
    isProblem(await execute(stranger.token, agent.id, body), 404);
    expect((await patchAgent(owner, agent.id, { execution_intents_enabled: false })).status).toBe(200);
    const off = await execute(agentToken, agent.id, body);
    isProblem(off, 403);
    expect(off.body.detail).toContain('execution_intents_enabled');
    expect((await patchAgent(owner, agent.id, { execution_intents_enabled: true })).status).toBe(200);
    await api('PATCH', `${bindingsUrl(agent.id)}/${b.id}`, { token: owner.token, body: { is_active: false } });
    isProblem(await execute(agentToken, agent.id, body), 403);
    expect(fake.received()).toEqual([]);
    await api('PATCH', `${bindingsUrl(agent.id)}/${b.id}`, { token: owner.token, body: { is_active: true } });
    expect((await execute(agentToken, agent.id, body)).body.status).toBe('success');
  });

  test('SSRF: a private address is refused when stored and, should one get in, when sent', async () => {
    const b = await binding({ config: { base_url: fake.url }, credential: credential('ssrf') });
    await db().query(`UPDATE execution_bindings SET config = jsonb_set(config, '{base_url}', '"https://10.0.0.1"') WHERE id = $1`, [b.id]);
    const r = await execute(agentToken, agent.id, { binding: b.name, intent_type: 'http_request', params: http('GET', '/x') });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'failed', result: null, error: expect.stringContaining('10.0.0.1') });
    expect(r.body.error).toMatch(/^refused: /);
  });
});

describe('vault_ref credentials', () => {
  test("read with the agent's own permissions: no grant or a deny policy is a 403 and nothing is sent", async () => {
    const vault = await newVault(owner);
    const cred = credential('vref');
    await putOk(owner, vault, 'apis/weather', cred, { type: 'api_key' });
    const b = await binding({ config: { base_url: fake.url, auth: { type: 'header', name: 'X-Key' } }, credential_source: { type: 'vault_ref', vault_id: vault, path: 'apis/weather' } });
    expect(b).toMatchObject({ credential_set: true, credential_source_type: 'vault_ref', credential_vault_id: vault, credential_path: 'apis/weather' });
    const body = { binding: b.name, intent_type: 'http_request', params: http('GET', '/w') };

    const denied = await execute(agentToken, agent.id, body);
    isProblem(denied, 403);
    expect(denied.body.detail).toContain('credential_source');
    expect(denied.body.detail).toContain('apis/weather');
    expect(fake.received()).toEqual([]);
    // The owner could read it, but a test reads as the agent does.
    const ownerTest = await testBinding(owner.token, agent.id, b.id);
    expect(ownerTest.body).toMatchObject({ success: false, error: expect.stringContaining('credential_source') });
    expect(fake.received()).toEqual([]);

    const grant = await api('POST', `/v1/vaults/${vault}/policies`, {
      token: owner.token, body: { secret_path_pattern: 'apis/**', principal_type: 'agent', principal_id: agent.id, permissions: ['read'] },
    });
    expect(grant.status).toBe(201);
    fake.leak(cred);
    const ok = await execute(agentToken, agent.id, body);
    expect(ok.body.status).toBe('success');
    expect(fake.received()[0]!.headers['x-key']).toBe(cred);
    expect(await auditFor(owner, 'secret.read', (await call('GET', `/v1/vaults/${vault}/secrets/apis/weather`, { token: owner.token })).body.id))
      .toEqual(expect.arrayContaining([expect.objectContaining({ actor_type: 'agent', actor_id: agent.id })]));

    fake.clear();
    const deny = await api('POST', `/v1/vaults/${vault}/policies`, {
      token: owner.token, body: { secret_path_pattern: 'apis/weather', principal_type: 'agent', principal_id: agent.id, permissions: ['read'], effect: 'deny' },
    });
    expect(deny.status).toBe(201);
    const again = await execute(agentToken, agent.id, body);
    isProblem(again, 403);
    expect(again.body.detail).toMatch(/credential_source: the agent cannot read/);
    expect(fake.received()).toEqual([]);

    // rotate-credential does not rotate a secret it does not hold.
    isProblem(await api('POST', `${bindingsUrl(agent.id)}/${b.id}/rotate-credential`, { token: owner.token, body: { credential: credential('x') } }), 409);
  });
});

describe('test and rotate-credential', () => {
  test('test: a GET of the base URL with the credential; only success, latency and a redacted error come back', async () => {
    const cred = credential('probe');
    const b = await binding({ config: { base_url: `${fake.url}/base` }, credential: cred });
    for (const token of [owner.token, agentToken]) {
      fake.clear();
      const r = await testBinding(token, agent.id, b.id, token === owner.token ? { timeout_ms: 5000 } : undefined);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ success: true, latency_ms: expect.any(Number), error: null });
      expect(fake.received().map((x) => [x.method, x.path, x.headers.authorization])).toEqual([['GET', '/base', `Bearer ${cred}`]]);
    }
    fake.respond(() => ({ status: 401, body: `bad key ${cred}` }));
    expect((await testBinding(owner.token, agent.id, b.id)).body).toEqual({ success: false, latency_ms: expect.any(Number), error: 'the base URL answered HTTP 401' });
    for (const token of [member.token, siblingToken]) isProblem(await testBinding(token, agent.id, b.id), 403);
    isProblem(await testBinding(stranger.token, agent.id, b.id), 404);
    isProblem(await testBinding(owner.token, agent.id, b.id, { timeout_ms: 'soon' }), 400);
  });

  test('rotate-credential: humans replace it, the next call uses the new one and the old one is erased', async () => {
    const first = credential('rot1');
    const b = await binding({ config: { base_url: fake.url }, credential: first });
    const second = credential('rot2');
    const r = await api('POST', `${bindingsUrl(agent.id)}/${b.id}/rotate-credential`, { token: owner.token, body: { credential: { api_key: second } } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: b.id, credential_set: true, credential_source_type: 'inline', config: b.config });
    await execute(agentToken, agent.id, { binding: b.name, intent_type: 'http_request', params: http('GET', '/n') });
    expect(fake.received()[0]!.headers.authorization).toBe(`Bearer ${second}`);
    const live = await db().query(
      `SELECT sv.version FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id WHERE s.path = $1 AND octet_length(sv.ciphertext) > 0`,
      [`agents/${agent.id}/bindings/${b.id}/credential`]);
    expect(live.rows.map((x) => x.version)).toEqual([2]);
    expect(await auditFor(owner, 'binding.rotate_credential', b.id)).toHaveLength(1);
  });
});

describe('executions and what is kept', () => {
  test('the list: the agent and its humans; summaries without values; nothing stored or logged holds a credential', async () => {
    const list = await api('GET', `/v1/agents/${agent.id}/executions?limit=200`, { token: agentToken });
    expect(list.status).toBe(200);
    const statuses = new Set(list.body.events.map((e: any) => e.status));
    expect([...statuses].sort()).toEqual(['denied', 'failed', 'success']);
    const success = list.body.events.find((e: any) => e.status === 'success');
    expect(success).toMatchObject({ agent_id: agent.id, intent_type: 'http_request', execution_mode: 'vault', request_summary: expect.objectContaining({ method: expect.any(String), path: expect.any(String) }) });
    const denied = list.body.events.find((e: any) => e.status === 'denied');
    expect(denied.error_message).toEqual(expect.any(String));
    expect((await api('GET', `/v1/agents/${agent.id}/executions?limit=1&offset=1`, { token: owner.token })).body.events).toEqual([list.body.events[1]]);
    expect((await api('GET', `/v1/agents/${agent.id}/executions`, { token: member.token })).status).toBe(200);
    isProblem(await api('GET', `/v1/agents/${agent.id}/executions`, { token: siblingToken }), 403);
    isProblem(await api('GET', `/v1/agents/${agent.id}/executions`, { token: stranger.token }), 404);
    isProblem(await api('GET', `/v1/agents/${agent.id}/executions?limit=0`, { token: owner.token }), 400);

    const tables = await db().query(
      `SELECT (SELECT coalesce(json_agg(e), '[]')::text FROM execution_events e WHERE org_id = $1)
        || (SELECT coalesce(json_agg(a), '[]')::text FROM audit_events a WHERE org_id = $1)
        || (SELECT coalesce(json_agg(b), '[]')::text FROM execution_bindings b WHERE org_id = $1) AS t`, [owner.orgId]);
    expect(leaks(tables.rows[0].t)).toEqual([]);
    const log = fs.readFileSync(path.join(process.env.TEST_DATA_DIR!, 'stack.log'), 'utf8');
    expect(leaks(log)).toEqual([]);
  });
});
