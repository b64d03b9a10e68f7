// Per-agent memory (reference /v1/agents/{agent_id}/memory*) over HTTP against the real stack:
// put/get/list/delete, namespaces, full-text search ranking and top_k, TTL expiry (and the lazy
// cleanup), the limits (value size, key, namespace, entries per agent), who may use an agent's
// memory, tenancy, and audit records that never hold the value.
import { randomUUID } from 'node:crypto';
import { call, closeDb, db, eventually, joinAsMember, signup, type Account, type Res } from '../helpers/api.ts';
import { agentJwt, auditFor, registerAgent, type Agent } from '../helpers/agent-fixtures.ts';

afterAll(closeDb);

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const UUID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

const isProblem = (r: Res, status: number, detail?: RegExp) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  if (detail) expect(r.body.detail).toMatch(detail);
};

type Setup = { owner: Account; agent: Agent; token: string };
async function setup(tag: string): Promise<Setup> {
  const owner = await signup(tag);
  const agent = await registerAgent(owner);
  return { owner, agent, token: await agentJwt(agent) };
}

const mem = (agentId: string, rest = '') => `/v1/agents/${agentId}/memory${rest}`;
const put = (token: string, agentId: string, ns: string, key: string, body: Record<string, unknown>) =>
  call('PUT', mem(agentId, `/${ns}/${encodeURIComponent(key)}`), { token, body });
const get = (token: string, agentId: string, ns: string, key: string) => call('GET', mem(agentId, `/${ns}/${encodeURIComponent(key)}`), { token });
const search = (token: string, agentId: string, body: Record<string, unknown>) => call('POST', mem(agentId, '/search'), { token, body });

describe('entries', () => {
  let s: Setup;
  beforeAll(async () => { s = await setup('mem-crud'); });

  test('the agent puts, gets, updates, lists and deletes its own entries', async () => {
    const created = await put(s.token, s.agent.id, 'prefs', 'color', { value: 'blue' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: UUID, agent_id: s.agent.id, namespace: 'prefs', key: 'color', value: 'blue', tier: 'durable', created_at: ISO, updated_at: ISO,
    });
    const got = await get(s.token, s.agent.id, 'prefs', 'color');
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const updated = await put(s.token, s.agent.id, 'prefs', 'color', { value: 'navy: a ? and a \' quote', tier: 'semantic' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, created_at: created.body.created_at, value: 'navy: a ? and a \' quote', tier: 'semantic' });
    expect(Date.parse(updated.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));

    expect((await put(s.token, s.agent.id, 'prefs', 'a/b key', { value: '7' })).status).toBe(200);
    expect((await put(s.token, s.agent.id, 'plans:v1', 'next', { value: 'ship' })).status).toBe(200);
    const list = await call('GET', mem(s.agent.id, '/prefs'), { token: s.token });
    expect(list.status).toBe(200);
    expect(list.body.entries.map((e: any) => [e.key, e.value])).toEqual([['a/b key', '7'], ['color', 'navy: a ? and a \' quote']]);
    const page = await call('GET', mem(s.agent.id, '/prefs?limit=1&offset=1'), { token: s.token });
    expect(page.body.entries.map((e: any) => e.key)).toEqual(['color']);
    const namespaces = await call('GET', mem(s.agent.id), { token: s.token });
    expect(namespaces.body).toEqual({ namespaces: ['plans:v1', 'prefs'] });

    const del = await call('DELETE', mem(s.agent.id, '/plans:v1/next'), { token: s.token });
    expect(del.status).toBe(204);
    isProblem(await get(s.token, s.agent.id, 'plans:v1', 'next'), 404);
    isProblem(await call('DELETE', mem(s.agent.id, '/plans:v1/next'), { token: s.token }), 404);
    expect((await call('GET', mem(s.agent.id), { token: s.token })).body).toEqual({ namespaces: ['prefs'] });
    expect((await call('GET', mem(s.agent.id, '/empty'), { token: s.token })).body).toEqual({ entries: [] });
  });

  test('audit records name the namespace and key, never the value', async () => {
    const r = await put(s.token, s.agent.id, 'audit', 'k1', { value: 'plugh-memory-value', ttl_seconds: 3600 });
    expect(r.body.ttl_expires_at).toEqual(ISO);
    expect((await call('DELETE', mem(s.agent.id, '/audit/k1'), { token: s.token })).status).toBe(204);
    const puts = await auditFor(s.owner, 'memory.put', r.body.id);
    const dels = await auditFor(s.owner, 'memory.delete', r.body.id);
    expect(puts).toHaveLength(1);
    expect(dels).toHaveLength(1);
    expect(puts[0].details).toEqual(expect.objectContaining({ agent_id: s.agent.id, namespace: 'audit', key: 'k1', ttl_seconds: 3600 }));
    expect(JSON.stringify([puts, dels])).not.toContain('plugh-memory-value');
  });

  test('limits: value 64 KiB (413), key 256, namespace pattern, tier and ttl are 400s naming the field', async () => {
    const big = 'x'.repeat(64 * 1024);
    const tooBig = await put(s.token, s.agent.id, 'lim', 'big', { value: big });
    isProblem(tooBig, 413, /value/);
    expect(tooBig.body.errors).toEqual([expect.objectContaining({ field: 'value' })]);
    expect((await put(s.token, s.agent.id, 'lim', 'fits', { value: 'x'.repeat(64 * 1024 - 2) })).status).toBe(200);
    isProblem(await put(s.token, s.agent.id, 'lim', 'huge', { value: 'y'.repeat(2 * 1024 * 1024) }), 413);
    isProblem(await put(s.token, s.agent.id, 'lim', 'k'.repeat(257), { value: '1' }), 400, /key/);
    expect((await put(s.token, s.agent.id, 'lim', 'k'.repeat(256), { value: '1' })).status).toBe(200);
    isProblem(await put(s.token, s.agent.id, 'bad%20ns', 'k', { value: '1' }), 400, /namespace/);
    isProblem(await put(s.token, s.agent.id, 'n'.repeat(129), 'k', { value: '1' }), 400, /namespace/);
    isProblem(await put(s.token, s.agent.id, 'lim', 'k', {}), 400, /value/);
    isProblem(await put(s.token, s.agent.id, 'lim', 'k', { value: null }), 400, /value/);
    isProblem(await put(s.token, s.agent.id, 'lim', 'k', { value: { a: 1 } }), 400, /value/);
    isProblem(await put(s.token, s.agent.id, 'lim', 'k', { value: '1', tier: 'forever' }), 400, /tier/);
    isProblem(await put(s.token, s.agent.id, 'lim', 'k', { value: '1', ttl_seconds: 0 }), 400, /ttl_seconds/);
    isProblem(await call('GET', mem(s.agent.id, '/bad%20ns'), { token: s.token }), 400, /namespace/);
  });

  test('at most 10,000 entries per agent: a new key is refused with the numbers, an existing one may change', async () => {
    const t = await setup('mem-cap');
    await db().query(
      `INSERT INTO agent_memory (agent_id, org_id, namespace, key, value)
       SELECT $1, $2, 'bulk', 'k' || g, '"v"'::jsonb FROM generate_series(1, 10000) g`, [t.agent.id, t.owner.orgId]);
    const refused = await put(t.token, t.agent.id, 'other', 'one-more', { value: '1' });
    isProblem(refused, 403, /10000\/10000/);
    expect(refused.body).toMatchObject({ type: 'resource_limit_exceeded', limit: 10000, used: 10000 });
    expect((await put(t.token, t.agent.id, 'bulk', 'k1', { value: 'changed' })).status).toBe(200);
    expect((await call('DELETE', mem(t.agent.id, '/bulk/k2'), { token: t.token })).status).toBe(204);
    expect((await put(t.token, t.agent.id, 'other', 'one-more', { value: '1' })).status).toBe(200);
  });
});

describe('search', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup('mem-search');
    const notes: [string, string][] = [
      ['deploy-runbook', 'deploy deploy deploy the api to production'],
      ['deploy-note', 'remember to deploy on friday'],
      ['lunch', 'pizza on friday'],
    ];
    for (const [key, value] of notes) expect((await put(s.token, s.agent.id, 'notes', key, { value })).status).toBe(200);
    // What a memory_put step may store: JSON that is not a string (the API shows it as JSON text).
    await db().query(`INSERT INTO agent_memory (agent_id, org_id, namespace, key, value) VALUES ($1, $2, 'notes', 'deploy-checklist', $3::jsonb)`,
      [s.agent.id, s.owner.orgId, JSON.stringify({ steps: ['build', 'deploy'] })]);
    expect((await put(s.token, s.agent.id, 'elsewhere', 'deploy', { value: 'deploy' })).status).toBe(200);
  });

  test('ranked by full-text match within the namespace, best first, cut at top_k', async () => {
    const r = await search(s.token, s.agent.id, { namespace: 'notes', query: 'deploy' });
    expect(r.status).toBe(200);
    const keys = r.body.results.map((x: any) => x.key);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toBe('deploy-runbook');
    expect(new Set(keys)).toEqual(new Set(['deploy-runbook', 'deploy-note', 'deploy-checklist']));
    const scores = r.body.results.map((x: any) => x.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(r.body.results[0]).toEqual({
      key: 'deploy-runbook', value: 'deploy deploy deploy the api to production', score: expect.any(Number), namespace: 'notes', updated_at: ISO,
    });

    const top1 = await search(s.token, s.agent.id, { namespace: 'notes', query: 'deploy', top_k: 1 });
    expect(top1.body.results.map((x: any) => x.key)).toEqual(['deploy-runbook']);
    const both = await search(s.token, s.agent.id, { namespace: 'notes', query: 'deploy friday' });
    expect(both.body.results.map((x: any) => x.key)).toEqual(['deploy-note']);
    const either = await search(s.token, s.agent.id, { namespace: 'notes', query: 'pizza or production', top_k: 50 });
    expect(new Set(either.body.results.map((x: any) => x.key))).toEqual(new Set(['lunch', 'deploy-runbook']));
    expect((await search(s.token, s.agent.id, { namespace: 'notes', query: 'nothing-matches' })).body).toEqual({ results: [] });
    const checklist = await get(s.token, s.agent.id, 'notes', 'deploy-checklist');
    expect(JSON.parse(checklist.body.value)).toEqual({ steps: ['build', 'deploy'] });
  });

  test('top_k above 50, a missing query or a bad namespace is a 400 naming the field', async () => {
    isProblem(await search(s.token, s.agent.id, { namespace: 'notes', query: 'deploy', top_k: 51 }), 400, /top_k/);
    isProblem(await search(s.token, s.agent.id, { namespace: 'notes', query: 'deploy', top_k: 0 }), 400, /top_k/);
    isProblem(await search(s.token, s.agent.id, { namespace: 'notes' }), 400, /query/);
    isProblem(await search(s.token, s.agent.id, { namespace: 'no spaces', query: 'x' }), 400, /namespace/);
  });
});

describe('expiry', () => {
  test('an entry with a TTL disappears once it expires, and a later put in its namespace removes the row', async () => {
    const s = await setup('mem-ttl');
    const r = await put(s.token, s.agent.id, 'scratch', 'temp', { value: 'soon gone', ttl_secs: 1, tier: 'scratch' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ tier: 'scratch', ttl_expires_at: ISO });
    expect(Date.parse(r.body.ttl_expires_at) - Date.parse(r.body.updated_at)).toBeLessThanOrEqual(1500);

    await eventually('the entry to expire', async () => ((await get(s.token, s.agent.id, 'scratch', 'temp')).status === 404 ? true : undefined));
    expect((await call('GET', mem(s.agent.id, '/scratch'), { token: s.token })).body).toEqual({ entries: [] });
    expect((await call('GET', mem(s.agent.id), { token: s.token })).body).toEqual({ namespaces: [] });
    expect((await search(s.token, s.agent.id, { namespace: 'scratch', query: 'gone' })).body).toEqual({ results: [] });

    const rows = async () => (await db().query('SELECT key FROM agent_memory WHERE agent_id = $1', [s.agent.id])).rows.map((x) => x.key);
    expect(await rows()).toEqual(['temp']);
    expect((await put(s.token, s.agent.id, 'scratch', 'fresh', { value: '1' })).status).toBe(200);
    expect(await rows()).toEqual(['fresh']);
  });
});

describe('who may use an agent\'s memory', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup('mem-who');
    expect((await put(s.token, s.agent.id, 'ns', 'k', { value: 'mine' })).status).toBe(200);
  });

  test('another agent of the organization is refused (403); an agent of another organization finds nothing (404)', async () => {
    const sibling = await registerAgent(s.owner);
    const siblingToken = await agentJwt(sibling);
    isProblem(await get(siblingToken, s.agent.id, 'ns', 'k'), 403, /own memory/);
    isProblem(await put(siblingToken, s.agent.id, 'ns', 'k', { value: 'overwritten' }), 403);
    isProblem(await search(siblingToken, s.agent.id, { namespace: 'ns', query: 'mine' }), 403);
    isProblem(await call('GET', mem(s.agent.id), { token: siblingToken }), 403);

    const stranger = await setup('mem-stranger');
    isProblem(await get(stranger.token, s.agent.id, 'ns', 'k'), 404);
    isProblem(await call('DELETE', mem(s.agent.id, '/ns/k'), { token: stranger.token }), 404);
    isProblem(await get(s.token, randomUUID(), 'ns', 'k'), 404);
    expect((await get(s.token, s.agent.id, 'ns', 'k')).body.value).toBe('mine');
  });

  test('owners and admins of the organization may; members may not; humans of another organization find nothing', async () => {
    const byOwner = await put(s.owner.token, s.agent.id, 'ns', 'from-owner', { value: 'hello agent' });
    expect(byOwner.status).toBe(200);
    expect((await get(s.token, s.agent.id, 'ns', 'from-owner')).body.value).toBe('hello agent');
    expect((await call('GET', mem(s.agent.id, '/ns'), { token: s.owner.token })).body.entries).toHaveLength(2);
    expect((await search(s.owner.token, s.agent.id, { namespace: 'ns', query: 'hello' })).body.results).toHaveLength(1);

    const member = await joinAsMember(s.owner, 'mem-member');
    isProblem(await get(member.token, s.agent.id, 'ns', 'k'), 403);
    const stranger = await signup('mem-other-org');
    isProblem(await get(stranger.token, s.agent.id, 'ns', 'k'), 404);
    isProblem(await call('GET', mem(s.agent.id), { token: stranger.token }), 404);
    isProblem(await put(stranger.token, s.agent.id, 'ns', 'k', { value: 'x' }), 404);
  });
});
