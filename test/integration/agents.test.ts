// Agents (§2.6, §4.5): registration, the agent-token exchange, validation, audit.
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { call, closeDb, signup, type Account, joinAsMember } from '../helpers/api.ts';
import { OCV_KEY, type Agent, registerAgent, agentToken, agentJwt, createVault, grantAgent, patchAgent, auditFor } from '../helpers/agent-fixtures.ts';

afterAll(closeDb);

describe('registering, listing and managing agents', () => {
  let owner: Account;
  let member: Account;
  let stranger: Account;
  let agent: Agent;

  beforeAll(async () => {
    owner = await signup('agt-reg');
    member = await joinAsMember(owner, 'agt-member');
    stranger = await signup('agt-reg-stranger');
  });

  test('POST /v1/agents returns the agent and its ocv_ key once', async () => {
    const r = await call('POST', '/v1/agents', { token: owner.token, body: { name: 'deploy-bot', description: 'ships builds' } });
    expect(r.status).toBe(201);
    expect(r.body.api_key).toMatch(OCV_KEY);
    expect(r.body.agent_id).toMatch(/^[0-9a-f-]{36}$/);
    // Issue 8 §5: `scopes` is an array ([] when the agent has no explicit scopes), no longer null.
    expect(r.body.agent).toEqual(expect.objectContaining({
      id: r.body.agent_id, agent_id: r.body.agent_id, name: 'deploy-bot', description: 'ships builds', org_id: owner.orgId,
      is_active: true, status: 'active', intents_api_enabled: false, scopes: [], api_key_expires_at: null,
      key_prefix: r.body.api_key.slice(0, 12), created_by: owner.userId,
    }));
    expect(JSON.stringify(r.body.agent)).not.toContain(r.body.api_key);
    expect(r.body.agent).not.toHaveProperty('key_digest');
    agent = { id: r.body.agent_id, apiKey: r.body.api_key, body: r.body };
  });

  test('GET /v1/agents and GET /v1/agents/{id} never show a key or digest', async () => {
    const list = await call('GET', '/v1/agents', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.agents).toEqual([expect.objectContaining({ id: agent.id, name: 'deploy-bot', is_active: true })]);
    expect(list.text).not.toContain(agent.apiKey);
    expect(list.text).not.toContain('key_digest');
    expect(list.text).not.toContain('approval_token_digest');
    expect(list.body.agents[0]).not.toHaveProperty('api_key');

    const one = await call('GET', `/v1/agents/${agent.id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(expect.objectContaining({ id: agent.id, name: 'deploy-bot', description: 'ships builds', created_by: owner.userId }));
    expect(one.text).not.toContain(agent.apiKey);
    expect(one.text).not.toContain('digest');
  });

  test('members may list and read agents but not create, change, deactivate or rotate them', async () => {
    const list = await call('GET', '/v1/agents', { token: member.token });
    expect(list.status).toBe(200);
    expect(list.body.agents.map((a: any) => a.id)).toEqual([agent.id]);
    expect((await call('GET', `/v1/agents/${agent.id}`, { token: member.token })).status).toBe(200);

    expect((await call('POST', '/v1/agents', { token: member.token, body: { name: 'mine' } })).status).toBe(403);
    expect((await patchAgent(member, agent.id, { name: 'renamed' })).status).toBe(403);
    expect((await call('DELETE', `/v1/agents/${agent.id}`, { token: member.token })).status).toBe(403);
    expect((await call('POST', `/v1/agents/${agent.id}/rotate-key`, { token: member.token })).status).toBe(403);

    // Nothing changed: same name, still active, the original key still works.
    const one = await call('GET', `/v1/agents/${agent.id}`, { token: owner.token });
    expect(one.body).toEqual(expect.objectContaining({ name: 'deploy-bot', is_active: true }));
    expect((await agentToken(agent.apiKey)).status).toBe(200);
  });

  test("another organization's agent id is a 404 everywhere", async () => {
    expect((await call('GET', `/v1/agents/${agent.id}`, { token: stranger.token })).status).toBe(404);
    expect((await patchAgent(stranger, agent.id, { name: 'stolen' })).status).toBe(404);
    expect((await call('DELETE', `/v1/agents/${agent.id}`, { token: stranger.token })).status).toBe(404);
    expect((await call('POST', `/v1/agents/${agent.id}/rotate-key`, { token: stranger.token })).status).toBe(404);
    expect((await call('GET', '/v1/agents', { token: stranger.token })).body.agents).toEqual([]);
    expect((await call('GET', `/v1/agents/${randomUUID()}`, { token: owner.token })).status).toBe(404);
    expect((await call('GET', `/v1/agents/not-a-uuid`, { token: owner.token })).status).toBe(404);
    expect((await agentToken(agent.apiKey)).status).toBe(200);
  });

  test('no token is a 401; bad registration input is a 400', async () => {
    expect((await call('GET', '/v1/agents')).status).toBe(401);
    expect((await call('POST', '/v1/agents', { body: { name: 'x' } })).status).toBe(401);
    const noName = await call('POST', '/v1/agents', { token: owner.token, body: { description: 'nameless' } });
    expect(noName.status).toBe(400);
    expect(noName.body.detail).toContain('name');
    const past = await call('POST', '/v1/agents', { token: owner.token, body: { name: 'old', api_key_expires_at: '2020-01-01T00:00:00Z' } });
    expect(past.status).toBe(400);
    expect(past.body.detail).toContain('api_key_expires_at');
  });

  test('the free tier allows two active agents; the third is 403 resource_limit_exceeded', async () => {
    await registerAgent(owner);
    const third = await call('POST', '/v1/agents', { token: owner.token, body: { name: 'one-too-many' } });
    expect(third.status).toBe(403);
    expect(third.body).toEqual(expect.objectContaining({ type: 'resource_limit_exceeded', resource: 'agents', limit: 2, used: 2, tier: 'free' }));
    expect((await call('GET', '/v1/agents', { token: owner.token })).body.agents).toHaveLength(2);
  });
});

describe('POST /v1/auth/agent-token', () => {
  let owner: Account;
  let agent: Agent;
  let other: Agent;
  let vaultId: string;

  beforeAll(async () => {
    owner = await signup('agt-token');
    agent = await registerAgent(owner, { name: 'token-bot' });
    other = await registerAgent(owner, { name: 'other-bot' });
    vaultId = await createVault(owner);
    await grantAgent(owner, vaultId, agent.id, 'api-keys/*', ['read']);
  });

  test('exchanges the key for a one-hour agent JWT, with or without agent_id', async () => {
    const r = await agentToken(agent.apiKey, agent.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(expect.objectContaining({
      access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, agent_id: agent.id, vault_ids: [vaultId],
    }));
    const claims = decodeJwt(r.body.access_token);
    expect(claims.sub).toBe(`agent:${agent.id}`);
    expect(claims.org).toBe(owner.orgId);
    expect(claims.scopes).toEqual(['api-keys/*']);
    expect(claims.scopes_source).toBe('policies');
    expect(claims.vault_ids).toEqual([vaultId]);
    expect(claims.intents_api_enabled).toBe(false);
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);

    const without = await agentToken(agent.apiKey);
    expect(without.status).toBe(200);
    expect(without.body.agent_id).toBe(agent.id);

    // An agent without policies gets the default scope.
    const o = await agentToken(other.apiKey);
    expect(o.body.vault_ids).toEqual([]);
    expect(decodeJwt(o.body.access_token).scopes).toEqual(['*']);
  });

  test('a wrong key, a wrong agent_id or garbage is the same 401', async () => {
    const wrongKey = await agentToken(`ocv_${'A'.repeat(43)}`, agent.id);
    const wrongAgent = await agentToken(agent.apiKey, other.id);
    const unknownAgent = await agentToken(agent.apiKey, randomUUID());
    const garbage = await agentToken('garbage', agent.id);
    const userKeyShape = await agentToken(`xck_${'A'.repeat(43)}`);
    for (const r of [wrongKey, wrongAgent, unknownAgent, garbage, userKeyShape]) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual(wrongKey.body);
    }
    expect((await call('POST', '/v1/auth/agent-token', { body: {} })).status).toBe(400);
    expect((await call('POST', '/v1/auth/agent-token', { body: { agent_id: agent.id } })).status).toBe(400);
  });

  test('GET /v1/agents/me answers the agent with its profile; humans get a 403', async () => {
    const jwt = await agentJwt(agent);
    const me = await call('GET', '/v1/agents/me', { token: jwt });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(expect.objectContaining({ id: agent.id, name: 'token-bot', org_id: owner.orgId, created_by: owner.userId, is_active: true }));
    expect(me.body.last_active_at).toEqual(expect.any(String));
    expect(me.text).not.toContain(agent.apiKey);
    const human = await call('GET', '/v1/agents/me', { token: owner.token });
    expect(human.status).toBe(403);
    // Agents are not allowed on the human-only agent management routes.
    expect((await call('GET', '/v1/agents', { token: jwt })).status).toBe(403);
    expect((await call('POST', '/v1/agents', { token: jwt, body: { name: 'spawn' } })).status).toBe(403);
    expect((await call('POST', `/v1/agents/${agent.id}/rotate-key`, { token: jwt })).status).toBe(403);
  });
});

describe('PATCH /v1/agents/{id} validation', () => {
  let owner: Account;
  let agent: Agent;

  beforeAll(async () => {
    owner = await signup('agt-patch');
    agent = await registerAgent(owner, { name: 'guarded-bot' });
  });

  test('guardrails: ETH amounts, chains and per-day counts', async () => {
    const ok = await patchAgent(owner, agent.id, { tx_max_value_eth: '0.5', tx_allowed_chains: ['ethereum', 'base'], tx_max_per_day: 10 });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual(expect.objectContaining({ tx_max_value_eth: '0.5', tx_allowed_chains: ['ethereum', 'base'], tx_max_per_day: 10 }));

    const abc = await patchAgent(owner, agent.id, { tx_max_value_eth: 'abc' });
    expect(abc.status).toBe(400);
    expect(abc.body.detail).toContain('tx_max_value_eth');
    const negative = await patchAgent(owner, agent.id, { tx_max_per_day: -1 });
    expect(negative.status).toBe(400);
    expect(negative.body.detail).toContain('tx_max_per_day');
    expect((await patchAgent(owner, agent.id, { tx_allowed_chains: ['Not A Chain!'] })).status).toBe(400);

    const after = await call('GET', `/v1/agents/${agent.id}`, { token: owner.token });
    expect(after.body).toEqual(expect.objectContaining({ tx_max_value_eth: '0.5', tx_allowed_chains: ['ethereum', 'base'], tx_max_per_day: 10 }));
  });

  test('tx_max_value and tx_daily_limit are accepted as aliases of the _eth fields', async () => {
    const r = await patchAgent(owner, agent.id, { tx_max_value: '1.25', tx_daily_limit: '3' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(expect.objectContaining({ tx_max_value_eth: '1.25', tx_daily_limit_eth: '3' }));
    expect(r.body).not.toHaveProperty('tx_max_value');
    const stored = await call('GET', `/v1/agents/${agent.id}`, { token: owner.token });
    expect(stored.body).toEqual(expect.objectContaining({ tx_max_value_eth: '1.25', tx_daily_limit_eth: '3' }));
    expect((await patchAgent(owner, agent.id, { tx_daily_limit: 'lots' })).status).toBe(400);
  });

  test('an empty name or an empty body is a 400; a rename alone keeps the tokens alive', async () => {
    const emptyName = await patchAgent(owner, agent.id, { name: '' });
    expect(emptyName.status).toBe(400);
    expect(emptyName.body.detail).toContain('name');
    expect((await patchAgent(owner, agent.id, { name: '   ' })).status).toBe(400);
    expect((await patchAgent(owner, agent.id, {})).status).toBe(400);
    expect((await call('PATCH', `/v1/agents/${agent.id}`, { token: owner.token })).status).toBe(400);

    const jwt = await agentJwt(agent);
    const renamed = await patchAgent(owner, agent.id, { name: 'renamed-bot', description: 'new words' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual(expect.objectContaining({ name: 'renamed-bot', description: 'new words' }));
    expect((await call('GET', '/v1/agents/me', { token: jwt })).body.name).toBe('renamed-bot');
  });
});

describe('agent audit records', () => {
  test('agent.register, agent.rotate_key and agent.deactivate are in the audit log', async () => {
    const owner = await signup('agt-audit');
    const agent = await registerAgent(owner, { name: 'audited-bot' });
    expect((await call('POST', `/v1/agents/${agent.id}/rotate-key`, { token: owner.token })).status).toBe(200);
    expect((await call('DELETE', `/v1/agents/${agent.id}`, { token: owner.token })).status).toBe(204);
    for (const action of ['agent.register', 'agent.rotate_key', 'agent.deactivate']) {
      const events = await auditFor(owner, action, agent.id);
      expect(events).toEqual([expect.objectContaining({
        action, actor_type: 'user', actor_id: owner.userId, org_id: owner.orgId, resource_type: 'agent', resource_id: agent.id,
      })]);
    }
    const all = await call('GET', '/v1/audit/events?limit=200', { token: owner.token });
    expect(all.text).not.toContain(agent.apiKey);
  });
});

describe('the agent record as 1Claw clients read it (issue 8 §5)', () => {
  let owner: Account;
  let agent: Agent;

  beforeAll(async () => {
    owner = await signup('agt-shape');
    agent = await registerAgent(owner, { name: 'shape-bot' });
  });

  test('registration answers {agent_id, api_key, agent}; the record omits unset optional fields and keeps nullable ones null', async () => {
    expect(Object.keys(agent.body).sort()).toEqual(['agent', 'agent_id', 'api_key']);
    const rec = agent.body.agent;
    expect(rec.scopes).toEqual([]);
    for (const field of ['tx_max_value_eth', 'tx_daily_limit_eth', 'last_active_at']) expect(rec).not.toHaveProperty(field);
    expect(rec).toEqual(expect.objectContaining({
      auth_method: 'api_key', shroud_enabled: false, api_key_expires_at: null, tx_max_per_day: null, token_ttl_seconds: null,
      tx_to_allowlist: [], tx_allowed_chains: [],
    }));
  });

  test('list, get and /v1/agents/me show scopes as an array; last_active_at appears once the agent has exchanged its key', async () => {
    const list = await call('GET', '/v1/agents', { token: owner.token });
    expect(list.body.agents[0].scopes).toEqual([]);
    const one = await call('GET', `/v1/agents/${agent.id}`, { token: owner.token });
    expect(one.body.scopes).toEqual([]);
    expect(one.body).not.toHaveProperty('last_active_at');

    const me = await call('GET', '/v1/agents/me', { token: await agentJwt(agent) });
    expect(me.status).toBe(200);
    expect(me.body.scopes).toEqual([]);
    expect(me.body.last_active_at).toEqual(expect.any(String));
    expect(me.body).not.toHaveProperty('tx_max_value_eth');
  });

  test('PATCH: a guardrail set is shown, cleared with null it is omitted again; explicit scopes show, null shows []', async () => {
    expect((await patchAgent(owner, agent.id, { tx_daily_limit_eth: '2' })).body.tx_daily_limit_eth).toBe('2');
    const cleared = await patchAgent(owner, agent.id, { tx_daily_limit_eth: null, tx_max_per_day: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('tx_daily_limit_eth');
    expect(cleared.body.tx_max_per_day).toBeNull();

    expect((await patchAgent(owner, agent.id, { scopes: ['app/*'] })).body.scopes).toEqual(['app/*']);
    expect((await patchAgent(owner, agent.id, { scopes: null })).body.scopes).toEqual([]);
  });

  test('rotate-key answers the new key once with its prefix', async () => {
    const r = await call('POST', `/v1/agents/${agent.id}/rotate-key`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ agent_id: agent.id, api_key: expect.stringMatching(OCV_KEY), key_prefix: r.body.api_key.slice(0, 12) });
    agent = { ...agent, apiKey: r.body.api_key };
  });

  test('the exchange is audited: auth.success for the agent, auth.failure in its organization for a wrong agent_id; never the key', async () => {
    const other = await registerAgent(owner, { name: 'other-shape-bot' });
    expect((await agentToken(agent.apiKey)).status).toBe(200);
    expect((await agentToken(agent.apiKey, other.id)).status).toBe(401);
    expect((await agentToken(agent.apiKey, 'not-a-uuid')).status).toBe(401);
    const ok = await auditFor(owner, 'auth.success', agent.id);
    expect(ok[0]).toEqual(expect.objectContaining({ actor_type: 'agent', actor_id: agent.id, org_id: owner.orgId, resource_type: 'agent' }));
    const failed = await auditFor(owner, 'auth.failure', agent.id);
    expect(failed).toHaveLength(2);
    expect(failed[0]).toEqual(expect.objectContaining({ org_id: owner.orgId, resource_type: 'agent', resource_id: agent.id }));
    const all = await call('GET', '/v1/audit/events?limit=200', { token: owner.token });
    expect(all.text).not.toContain(agent.apiKey);
  });
});
