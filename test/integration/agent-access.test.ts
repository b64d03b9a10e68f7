// What an agent can reach: live policies, explicit scopes, the Intents restriction, deactivation, key rotation and expiry.
import { decodeJwt } from 'jose';
import { call, closeDb, eventually, signup, type Account } from '../helpers/api.ts';
import { OCV_KEY, type Agent, registerAgent, agentToken, agentJwt, createVault, putSecret, readSecret, grantAgent, patchAgent } from '../helpers/agent-fixtures.ts';

afterAll(closeDb);

describe('the agent walk-through: policies decide, live', () => {
  let owner: Account;
  let agent: Agent;
  let vaultId: string;
  let policyId: string;
  let jwt: string;

  beforeAll(async () => {
    owner = await signup('agt-walk');
    vaultId = await createVault(owner);
    expect((await putSecret(owner.token, vaultId, 'api-keys/openai', 'sk-openai-123', 'api_key')).status).toBe(201);
    expect((await putSecret(owner.token, vaultId, 'api-keys/nested/deep', 'deep-value')).status).toBe(201);
    expect((await putSecret(owner.token, vaultId, 'db/password', 'hunter2', 'password')).status).toBe(201);
    agent = await registerAgent(owner, { name: 'walk-bot' });
    policyId = await grantAgent(owner, vaultId, agent.id, 'api-keys/*', ['read']);
  });

  test('with only its ocv_ key the agent obtains a JWT naming the vault', async () => {
    const r = await agentToken(agent.apiKey);
    expect(r.status).toBe(200);
    expect(r.body.vault_ids).toContain(vaultId);
    jwt = r.body.access_token;
  });

  test('it reads api-keys/openai and nothing else', async () => {
    const ok = await readSecret(jwt, vaultId, 'api-keys/openai');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual(expect.objectContaining({ path: 'api-keys/openai', value: 'sk-openai-123', type: 'api_key', version: 1 }));

    const deep = await readSecret(jwt, vaultId, 'api-keys/nested/deep');
    expect(deep.status).toBe(403);
    expect(deep.text).not.toContain('deep-value');
    const db = await readSecret(jwt, vaultId, 'db/password');
    expect(db.status).toBe(403);
    expect(db.text).not.toContain('hunter2');
    expect(db.body.detail).toContain("'read'");
  });

  test('it cannot write, not even where it reads', async () => {
    expect((await putSecret(jwt, vaultId, 'api-keys/openai', 'overwritten')).status).toBe(403);
    expect((await putSecret(jwt, vaultId, 'api-keys/new', 'x')).status).toBe(403);
    expect((await call('DELETE', `/v1/vaults/${vaultId}/secrets/api-keys/openai`, { token: jwt })).status).toBe(403);
    expect((await readSecret(owner.token, vaultId, 'api-keys/openai')).body.value).toBe('sk-openai-123');
  });

  test('its listing shows only api-keys/openai', async () => {
    const list = await call('GET', `/v1/vaults/${vaultId}/secrets`, { token: jwt });
    expect(list.status).toBe(200);
    expect(list.body.secrets.map((s: any) => s.path)).toEqual(['api-keys/openai']);
    expect(list.text).not.toContain('sk-openai-123');
  });

  test('widening the grant to api-keys/** opens the nested path on the next request with the same token', async () => {
    expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: owner.token })).status).toBe(204);
    expect((await readSecret(jwt, vaultId, 'api-keys/openai')).status).toBe(403);
    policyId = await grantAgent(owner, vaultId, agent.id, 'api-keys/**', ['read']);
    const deep = await readSecret(jwt, vaultId, 'api-keys/nested/deep');
    expect(deep.status).toBe(200);
    expect(deep.body.value).toBe('deep-value');
    expect((await readSecret(jwt, vaultId, 'api-keys/openai')).body.value).toBe('sk-openai-123');
    expect((await readSecret(jwt, vaultId, 'db/password')).status).toBe(403);
    const list = await call('GET', `/v1/vaults/${vaultId}/secrets`, { token: jwt });
    expect(list.body.secrets.map((s: any) => s.path)).toEqual(['api-keys/nested/deep', 'api-keys/openai']);
  });
});

describe('explicit scopes bind the agent beyond its policies', () => {
  let owner: Account;
  let agent: Agent;
  let vaultId: string;

  beforeAll(async () => {
    owner = await signup('agt-scopes');
    vaultId = await createVault(owner);
    expect((await putSecret(owner.token, vaultId, 'api-keys/openai', 'sk-1', 'api_key')).status).toBe(201);
    expect((await putSecret(owner.token, vaultId, 'db/password', 'pw-1', 'password')).status).toBe(201);
    agent = await registerAgent(owner, { name: 'scoped-bot' });
    await grantAgent(owner, vaultId, agent.id, '**', ['read']);
  });

  test('setting scopes kills older tokens; new tokens carry and enforce them', async () => {
    const old = await agentJwt(agent);
    expect((await readSecret(old, vaultId, 'db/password')).body.value).toBe('pw-1');

    const r = await patchAgent(owner, agent.id, { scopes: ['api-keys/openai'] });
    expect(r.status).toBe(200);
    expect(r.body.scopes).toEqual(['api-keys/openai']);
    expect((await readSecret(old, vaultId, 'api-keys/openai')).status).toBe(401);
    expect((await call('GET', '/v1/agents/me', { token: old })).status).toBe(401);

    const fresh = await agentToken(agent.apiKey, agent.id);
    expect(fresh.status).toBe(200);
    const claims = decodeJwt(fresh.body.access_token);
    expect(claims.scopes).toEqual(['api-keys/openai']);
    expect(claims.scopes_source).toBe('explicit');
    const jwt = fresh.body.access_token;

    expect((await readSecret(jwt, vaultId, 'api-keys/openai')).body.value).toBe('sk-1');
    const refused = await readSecret(jwt, vaultId, 'db/password');
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/scope/i);
    expect(refused.text).not.toContain('pw-1');
    const list = await call('GET', `/v1/vaults/${vaultId}/secrets`, { token: jwt });
    expect(list.body.secrets.map((s: any) => s.path)).toEqual(['api-keys/openai']);
  });

  test('scopes never widen what the policies grant', async () => {
    const r = await patchAgent(owner, agent.id, { scopes: ['*'] });
    expect(r.status).toBe(200);
    const policies = await call('GET', `/v1/vaults/${vaultId}/policies`, { token: owner.token });
    for (const p of policies.body.policies) expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${p.id}`, { token: owner.token })).status).toBe(204);
    const jwt = await agentJwt(agent);
    expect(decodeJwt(jwt).scopes).toEqual(['*']);
    expect((await readSecret(jwt, vaultId, 'api-keys/openai')).status).toBe(403);
    expect((await patchAgent(owner, agent.id, { scopes: ['a//b'] })).status).toBe(400);
  });
});

describe('the Intents API flag', () => {
  let owner: Account;
  let agent: Agent;
  let vaultId: string;

  beforeAll(async () => {
    owner = await signup('agt-intents');
    vaultId = await createVault(owner);
    expect((await putSecret(owner.token, vaultId, 'keys/signer', '-----BEGIN PRIVATE KEY-----x', 'private_key')).status).toBe(201);
    expect((await putSecret(owner.token, vaultId, 'keys/deploy', 'ssh-ed25519 AAAA', 'ssh_key')).status).toBe(201);
    expect((await putSecret(owner.token, vaultId, 'keys/openai', 'sk-intents', 'api_key')).status).toBe(201);
    agent = await registerAgent(owner, { name: 'intents-bot' });
    await grantAgent(owner, vaultId, agent.id, 'keys/*', ['read']);
  });

  test('without the flag the agent reads signing material', async () => {
    const jwt = await agentJwt(agent);
    expect(decodeJwt(jwt).intents_api_enabled).toBe(false);
    expect((await readSecret(jwt, vaultId, 'keys/signer')).status).toBe(200);
    expect((await readSecret(jwt, vaultId, 'keys/deploy')).status).toBe(200);
  });

  test('with the flag, private_key and ssh_key reads are refused in favour of the Intents API; api_key still reads', async () => {
    const old = await agentJwt(agent);
    const r = await patchAgent(owner, agent.id, { intents_api_enabled: true });
    expect(r.status).toBe(200);
    expect(r.body.intents_api_enabled).toBe(true);
    expect((await readSecret(old, vaultId, 'keys/openai')).status).toBe(401);

    const jwt = await agentJwt(agent);
    expect(decodeJwt(jwt).intents_api_enabled).toBe(true);
    for (const path of ['keys/signer', 'keys/deploy']) {
      const refused = await readSecret(jwt, vaultId, path);
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toMatch(/Intents API/);
      expect(refused.text).not.toContain('PRIVATE KEY');
      expect(refused.text).not.toContain('ssh-ed25519');
    }
    const ok = await readSecret(jwt, vaultId, 'keys/openai');
    expect(ok.status).toBe(200);
    expect(ok.body.value).toBe('sk-intents');
    // The owner (a human) still reads the private key.
    expect((await readSecret(owner.token, vaultId, 'keys/signer')).status).toBe(200);
  });
});

describe('deactivation, reactivation and key rotation', () => {
  let owner: Account;
  let vaultId: string;

  beforeAll(async () => {
    owner = await signup('agt-life');
    vaultId = await createVault(owner);
    expect((await putSecret(owner.token, vaultId, 'app/token', 'tok-1')).status).toBe(201);
  });

  test('DELETE deactivates at once: its JWT and its key are 401s; PATCH is_active:true brings the key back', async () => {
    const agent = await registerAgent(owner, { name: 'doomed-bot' });
    await grantAgent(owner, vaultId, agent.id, 'app/*', ['read']);
    const jwt = await agentJwt(agent);
    expect((await readSecret(jwt, vaultId, 'app/token')).status).toBe(200);

    expect((await call('DELETE', `/v1/agents/${agent.id}`, { token: owner.token })).status).toBe(204);
    expect((await readSecret(jwt, vaultId, 'app/token')).status).toBe(401);
    expect((await call('GET', '/v1/agents/me', { token: jwt })).status).toBe(401);
    expect((await agentToken(agent.apiKey)).status).toBe(401);
    const shown = await call('GET', `/v1/agents/${agent.id}`, { token: owner.token });
    expect(shown.body).toEqual(expect.objectContaining({ is_active: false, status: 'inactive' }));

    const back = await patchAgent(owner, agent.id, { is_active: true });
    expect(back.status).toBe(200);
    expect(back.body.is_active).toBe(true);
    // The old JWT stays dead; the same key works again.
    expect((await readSecret(jwt, vaultId, 'app/token')).status).toBe(401);
    const jwt2 = await agentJwt(agent);
    expect((await readSecret(jwt2, vaultId, 'app/token')).body.value).toBe('tok-1');
    expect((await call('DELETE', `/v1/agents/${agent.id}`, { token: owner.token })).status).toBe(204);
  });

  test('rotate-key: new key works, the old key and its JWTs are 401s', async () => {
    const agent = await registerAgent(owner, { name: 'rotating-bot' });
    await grantAgent(owner, vaultId, agent.id, 'app/*', ['read']);
    const oldJwt = await agentJwt(agent);

    const r = await call('POST', `/v1/agents/${agent.id}/rotate-key`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.body.api_key).toMatch(OCV_KEY);
    expect(r.body.api_key).not.toBe(agent.apiKey);

    expect((await agentToken(agent.apiKey)).status).toBe(401);
    expect((await readSecret(oldJwt, vaultId, 'app/token')).status).toBe(401);
    const fresh = await agentToken(r.body.api_key, agent.id);
    expect(fresh.status).toBe(200);
    expect((await readSecret(fresh.body.access_token, vaultId, 'app/token')).body.value).toBe('tok-1');
    const shown = await call('GET', `/v1/agents/${agent.id}`, { token: owner.token });
    expect(shown.body.key_prefix).toBe(r.body.api_key.slice(0, 12));
  });
});

describe('agent key expiry', () => {
  let owner: Account;

  beforeAll(async () => { owner = await signup('agt-expiry'); });

  test('a key expiring in ~2 s works, then the exchange is a 401', async () => {
    const agent = await registerAgent(owner, { name: 'short-lived', api_key_expires_at: new Date(Date.now() + 2_000).toISOString() });
    expect(agent.body.agent.api_key_expires_at).toEqual(expect.any(String));
    expect((await agentToken(agent.apiKey)).status).toBe(200);
    const refused = await eventually('agent key expiry', async () => {
      const r = await agentToken(agent.apiKey);
      return r.status === 200 ? undefined : r;
    }, 15_000);
    expect(refused.status).toBe(401);
  });

  test('an expiry in the past is a 400, at creation and in PATCH; a future one through PATCH is kept', async () => {
    const past = await call('POST', '/v1/agents', { token: owner.token, body: { name: 'past', api_key_expires_at: '2020-01-01T00:00:00Z' } });
    expect(past.status).toBe(400);
    const agent = await registerAgent(owner, { name: 'patched-expiry' });
    const bad = await patchAgent(owner, agent.id, { api_key_expires_at: '2020-01-01T00:00:00Z' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('api_key_expires_at');
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const ok = await patchAgent(owner, agent.id, { api_key_expires_at: later });
    expect(ok.status).toBe(200);
    expect(Date.parse(ok.body.api_key_expires_at)).toBe(Date.parse(later));
    expect((await agentToken(agent.apiKey)).status).toBe(200);
  });
});

describe('an empty scopes list means no explicit scopes: derived from policies (§2.5a, issue 8 §5)', () => {
  let owner: Account;
  let vaultId: string;

  beforeAll(async () => {
    owner = await signup('agt-empty-scopes');
    vaultId = await createVault(owner);
    expect((await putSecret(owner.token, vaultId, 'app/one', 'v-1')).status).toBe(201);
    expect((await putSecret(owner.token, vaultId, 'app/two', 'v-2')).status).toBe(201);
  });

  test('registered with scopes: [] the agent reads what its policies grant, and its token scopes are derived', async () => {
    const agent = await registerAgent(owner, { name: 'empty-scopes-bot', scopes: [] });
    expect(agent.body.agent.scopes).toEqual([]);
    await grantAgent(owner, vaultId, agent.id, 'app/*', ['read']);
    const jwt = await agentJwt(agent);
    const claims = decodeJwt(jwt);
    expect(claims.scopes).toEqual(['app/*']);
    expect(claims.scopes_source).toBe('policies');
    expect((await readSecret(jwt, vaultId, 'app/two')).body.value).toBe('v-2');
  });

  test('sending back the [] a record shows drops explicit scopes and ends the older tokens; null does the same', async () => {
    const agent = await registerAgent(owner, { name: 'round-trip-bot', scopes: ['app/one'] });
    await grantAgent(owner, vaultId, agent.id, 'app/*', ['read']);
    const bound = await agentJwt(agent);
    expect((await readSecret(bound, vaultId, 'app/two')).status).toBe(403);

    const r = await patchAgent(owner, agent.id, { scopes: [] });
    expect(r.status).toBe(200);
    expect(r.body.scopes).toEqual([]);
    expect((await readSecret(bound, vaultId, 'app/one')).status).toBe(401);
    const jwt = await agentJwt(agent);
    expect(decodeJwt(jwt).scopes_source).toBe('policies');
    expect((await readSecret(jwt, vaultId, 'app/two')).body.value).toBe('v-2');

    expect((await patchAgent(owner, agent.id, { scopes: ['app/one'] })).body.scopes).toEqual(['app/one']);
    const cleared = await patchAgent(owner, agent.id, { scopes: null });
    expect(cleared.body.scopes).toEqual([]);
    expect(decodeJwt(await agentJwt(agent)).scopes_source).toBe('policies');
  });
});
