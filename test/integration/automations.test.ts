// Automations CRUD (§2.12, §4.16) over HTTP against the real stack: every trigger type, the
// 400s that name their field, the presets (each one creates), the tier cap, the list's
// statistics, who may read and manage, tenancy, and the webhook token (shown once, stored only
// as its SHA-256, rotated by humans only). Runs and triggers have their own file.
import { createHash, randomUUID } from 'node:crypto';
import { call, closeDb, db, joinAsMember, login, signup, type Account, type Res } from '../helpers/api.ts';
import { agentJwt, auditFor, registerAgent, type Agent } from '../helpers/agent-fixtures.ts';
import { rnd } from '../helpers/vault-fixtures.ts';

afterAll(closeDb);

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const WHK = /^whk_[A-Za-z0-9_-]{43}$/;
const STEPS = { steps: [{ type: 'log', message: 'hello' }] };

const setTier = (a: Account, tier: string) => db().query('UPDATE organizations SET billing_tier = $1 WHERE id = $2', [tier, a.orgId]);

const create = (a: Account | string, body: Record<string, unknown>) =>
  call('POST', '/v1/automations', { token: typeof a === 'string' ? a : a.token, body });

async function created(a: Account, agentId: string, body: Record<string, unknown> = {}): Promise<any> {
  const r = await create(a, { name: rnd('auto'), agent_id: agentId, trigger_type: 'manual', workflow_spec: STEPS, ...body });
  expect({ status: r.status, body: r.body }).toEqual({ status: 201, body: expect.anything() });
  return r.body;
}

/** A 400 problem that names `field` (in its detail and its errors list). */
function namesField(r: Res, field: string): void {
  expect({ status: r.status, detail: r.body?.detail }).toEqual({ status: 400, detail: expect.stringContaining(field) });
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect((r.body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
}

const storedHash = async (id: string): Promise<Buffer | null> =>
  (await db().query('SELECT webhook_token_hash FROM automations WHERE id = $1', [id])).rows[0]?.webhook_token_hash ?? null;
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** An owner's colleague with the admin role (invited as a member, then promoted; logged in again). */
async function joinAsAdmin(owner: Account): Promise<Account> {
  const m = await joinAsMember(owner, 'admin');
  const r = await call('PATCH', `/v1/org/members/${m.userId}`, { token: owner.token, body: { role: 'admin' } });
  expect(r.status).toBe(200);
  return { ...m, token: await login(m.email, m.password) };
}

let owner: Account;
let agent: Agent;

beforeAll(async () => {
  owner = await signup('automations');
  // Business tier: these tests create more automations than the free tier's two.
  await setTier(owner, 'business');
  agent = await registerAgent(owner);
});

describe('create', () => {
  test('manual: 201 with the record as stored, UTC by default, statistics empty, no webhook credentials', async () => {
    const r = await create(owner, { name: '  Nightly report ', agent_id: agent.id, trigger_type: 'manual', workflow_spec: STEPS });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String), org_id: owner.orgId, agent_id: agent.id, name: 'Nightly report', trigger_type: 'manual', timezone: 'UTC',
      workflow_spec: STEPS, is_active: true, total_runs: 0, agent_name: agent.body.agent.name, created_at: ISO, updated_at: ISO,
    });
    const audit = await auditFor(owner, 'automation.create', r.body.id);
    expect(audit).toHaveLength(1);
    expect(audit[0].details).toMatchObject({ name: 'Nightly report', trigger_type: 'manual', agent_id: agent.id });
  });

  test('schedule is read as cron; a 5-field and a 6-field seconds-first expression are stored as given; a zone is kept', async () => {
    const five = await created(owner, agent.id, { trigger_type: 'schedule', cron_expr: '*/15 * * * *' });
    expect(five).toMatchObject({ trigger_type: 'cron', cron_expr: '*/15 * * * *', timezone: 'UTC' });
    const six = await created(owner, agent.id, { trigger_type: 'cron', cron_expr: '0 30 9 * * 1-5', timezone: 'Europe/Berlin' });
    expect(six).toMatchObject({ trigger_type: 'cron', cron_expr: '0 30 9 * * 1-5', timezone: 'Europe/Berlin' });
    const got = await call('GET', `/v1/automations/${six.id}`, { token: owner.token });
    expect(got.body).toMatchObject({ trigger_type: 'cron', cron_expr: '0 30 9 * * 1-5', timezone: 'Europe/Berlin' });
  });

  test('event: every §6.3 event is accepted and its filter echoed; a bare array workflow_spec stays an array', async () => {
    for (const eventType of ['secret.created', 'secret.updated', 'secret.rotated', 'secret.deleted', 'policy.created', 'policy.updated', 'policy.deleted']) {
      const a = await created(owner, agent.id, { trigger_type: 'event', event_filter: { event_type: eventType }, workflow_spec: [{ action: 'log', message: 'x' }] });
      expect(a).toMatchObject({ trigger_type: 'event', event_filter: { event_type: eventType }, workflow_spec: [{ action: 'log', message: 'x' }] });
      expect(a.cron_expr).toBeUndefined();
      const { rows } = await db().query('SELECT event_type FROM automations WHERE id = $1', [a.id]);
      expect(rows[0].event_type).toBe(eventType);
    }
  });

  test('webhook: URL and whk_ token once; get and list never show them; only the 32-byte SHA-256 is stored', async () => {
    const a = await created(owner, agent.id, { trigger_type: 'webhook', cron_expr: null, event_filter: null });
    expect(a.webhook_token).toMatch(WHK);
    expect(a.webhook_url).toMatch(new RegExp(`^https?://[^/]+(/.*)?/v1/automations/webhook/${a.id}/${a.webhook_token}$`));
    const hash = await storedHash(a.id);
    expect(hash).toHaveLength(32);
    expect(hash!.toString('hex')).toMatch(/^[0-9a-f]{64}$/);
    expect(hash!.toString('hex')).toBe(sha256(a.webhook_token));
    const { rows } = await db().query('SELECT row_to_json(a)::text AS j FROM automations a WHERE id = $1', [a.id]);
    expect(rows[0].j).not.toContain(a.webhook_token.slice(4));
    const got = await call('GET', `/v1/automations/${a.id}`, { token: owner.token });
    const list = await call('GET', '/v1/automations', { token: owner.token });
    for (const body of [got.body, list.body]) {
      expect(JSON.stringify(body)).not.toContain(a.webhook_token);
      expect(JSON.stringify(body)).not.toContain('webhook_token');
    }
    expect(got.body.trigger_type).toBe('webhook');
    const audit = await auditFor(owner, 'automation.create', a.id);
    expect(JSON.stringify(audit)).not.toContain(a.webhook_token);
  });

  describe('400s that name the field', () => {
    const base = () => ({ name: rnd('bad'), agent_id: agent.id, trigger_type: 'manual', workflow_spec: STEPS });

    test.each([
      ['name', (b: any) => { delete b.name; }],
      ['name', (b: any) => { b.name = '   '; }],
      ['name', (b: any) => { b.name = 'x'.repeat(201); }],
      ['agent_id', (b: any) => { delete b.agent_id; }],
      ['trigger_type', (b: any) => { delete b.trigger_type; }],
      ['trigger_type', (b: any) => { b.trigger_type = 'hourly'; }],
      ['workflow_spec', (b: any) => { delete b.workflow_spec; }],
      ['workflow_spec', (b: any) => { b.workflow_spec = 'log hello'; }],
      ['cron_expr', (b: any) => { b.trigger_type = 'cron'; }],
      ['cron_expr', (b: any) => { b.trigger_type = 'schedule'; b.cron_expr = '  '; }],
      ['cron_expr', (b: any) => { b.trigger_type = 'cron'; b.cron_expr = '61 * * * *'; }],
      ['cron_expr', (b: any) => { b.trigger_type = 'cron'; b.cron_expr = '*/10 * * * * *'; }],
      ['cron_expr', (b: any) => { b.trigger_type = 'cron'; b.cron_expr = 'every day'; }],
      ['cron_expr', (b: any) => { b.cron_expr = '0 * * * *'; }],
      ['timezone', (b: any) => { b.trigger_type = 'cron'; b.cron_expr = '0 * * * *'; b.timezone = 'Mars/Olympus_Mons'; }],
      ['timezone', (b: any) => { b.timezone = '+01:00'; }],
      ['event_filter', (b: any) => { b.trigger_type = 'event'; }],
      ['event_filter', (b: any) => { b.event_filter = { event_type: 'secret.created' }; }],
      ['event_filter', (b: any) => { b.trigger_type = 'event'; b.event_filter = 'secret.created'; }],
      ['event_filter.event_type', (b: any) => { b.trigger_type = 'event'; b.event_filter = {}; }],
      ['event_filter.event_type', (b: any) => { b.trigger_type = 'event'; b.event_filter = { event_type: 'agent.created' }; }],
      ['event_filter.event_type', (b: any) => { b.trigger_type = 'event'; b.event_filter = { event_type: 'wallet.transfer.sent' }; }],
      ['workflow_spec.steps', (b: any) => { b.workflow_spec = { steps: [] }; }],
      ['workflow_spec.steps[1].duration_secs', (b: any) => { b.workflow_spec = [{ type: 'log', message: 'a' }, { type: 'wait', duration_secs: 99 }]; }],
      ['workflow_spec.steps[0].type', (b: any) => { b.workflow_spec = { steps: [{ type: 'teleport' }] }; }],
    ])('%s (case %#)', async (field, mutate) => {
      const body: any = base();
      mutate(body);
      namesField(await create(owner, body), field);
    });

    test('agent_id: another organization\'s agent, a deactivated agent and a missing one are all refused alike', async () => {
      const stranger = await signup('foreign');
      const foreign = await registerAgent(stranger);
      const inactive = await registerAgent(owner);
      expect((await call('DELETE', `/v1/agents/${inactive.id}`, { token: owner.token })).status).toBe(204);
      const answers: string[] = [];
      for (const agentId of [foreign.id, inactive.id, randomUUID(), 'not-a-uuid']) {
        const r = await create(owner, { ...base(), agent_id: agentId });
        namesField(r, 'agent_id');
        answers.push(r.body.detail);
      }
      expect(new Set(answers).size).toBe(1);
    });
  });
});

describe('presets', () => {
  const IDS = ['rotate-api-keys-weekly', 'daily-dca-buy', 'health-check-alert', 'database-sync', 'weekly-content-draft',
    'competitor-watch', 'campaign-report', 'monitor-balance', 'lead-nurture-email', 'sentiment-alert'];

  test('GET /v1/automations/presets is public and lists the ten presets of the spec', async () => {
    const r = await call('GET', '/v1/automations/presets');
    expect(r.status).toBe(200);
    expect(r.body.presets.map((p: any) => p.id)).toEqual(IDS);
    for (const p of r.body.presets) {
      expect(p).toMatchObject({ name: expect.any(String), description: expect.any(String), workflow_spec: expect.any(Object), estimated_cost_per_run: expect.any(Number) });
      const isWebhook = ['lead-nurture-email', 'sentiment-alert'].includes(p.id);
      expect(p.trigger_type).toBe(isWebhook ? 'webhook' : 'cron');
      if (!isWebhook) expect(p.default_cron).toEqual(expect.any(String));
    }
  });

  test('every preset creates an automation as published (a pro organization: exactly its cap of ten)', async () => {
    const org = await signup('presets');
    await setTier(org, 'pro');
    const bot = await registerAgent(org);
    const presets = (await call('GET', '/v1/automations/presets')).body.presets as any[];
    for (const p of presets) {
      const r = await create(org, {
        name: p.name, agent_id: bot.id, trigger_type: p.trigger_type, cron_expr: p.cron_expr ?? p.default_cron ?? null, workflow_spec: p.workflow_spec,
      });
      expect({ preset: p.id, status: r.status, detail: r.body.detail }).toEqual({ preset: p.id, status: 201, detail: undefined });
      expect(r.body).toMatchObject({ trigger_type: p.trigger_type, workflow_spec: p.workflow_spec });
      if (p.trigger_type === 'webhook') expect(r.body.webhook_token).toMatch(WHK);
      else expect(r.body.cron_expr).toBe(p.cron_expr ?? p.default_cron);
    }
    const list = await call('GET', '/v1/automations', { token: org.token });
    expect(list.body.automations).toHaveLength(IDS.length);
  });
});

test('tier cap: the free tier allows two automations; the third is 403 resource_limit_exceeded with the numbers', async () => {
  const free = await signup('free-tier');
  const bot = await registerAgent(free);
  await created(free, bot.id);
  await created(free, bot.id, { trigger_type: 'webhook' });
  const third = await create(free, { name: 'third', agent_id: bot.id, trigger_type: 'manual', workflow_spec: STEPS });
  expect(third.status).toBe(403);
  expect(third.body).toEqual(expect.objectContaining({ type: 'resource_limit_exceeded', resource: 'automations', limit: 2, used: 2, tier: 'free' }));
  expect(third.body.detail).toContain('2/2');
  // Deleting one makes room again.
  const first = (await call('GET', '/v1/automations', { token: free.token })).body.automations[0];
  expect((await call('DELETE', `/v1/automations/${first.id}`, { token: free.token })).status).toBe(204);
  await created(free, bot.id);
});

describe('list, get, update, delete', () => {
  test('the list carries statistics: last run, runs and success rate over 30 days, agent name', async () => {
    const fresh = await created(owner, agent.id);
    const ran = await created(owner, agent.id);
    // Finished runs written straight into the table (no workflow is involved for finished runs).
    const run = (status: string, ageMinutes: number) => db().query(
      `INSERT INTO automation_runs (id, org_id, automation_id, agent_id, status, trigger_source, started_at, finished_at)
       VALUES ($1, $2, $3, $4, $5, 'manual', now() - make_interval(mins => $6), now() - make_interval(mins => $6))`,
      [randomUUID(), owner.orgId, ran.id, agent.id, status, ageMinutes]);
    await run('success', 30);
    await run('success', 20);
    await run('failed', 10);
    await run('cancelled', 5);
    await run('success', 60 * 24 * 40); // older than 30 days: not counted
    const list = await call('GET', '/v1/automations', { token: owner.token });
    expect(list.status).toBe(200);
    const byId = new Map((list.body.automations as any[]).map((a) => [a.id, a]));
    expect(byId.get(fresh.id)).toMatchObject({ total_runs: 0, agent_name: agent.body.agent.name });
    expect(byId.get(fresh.id).success_rate).toBeUndefined();
    expect(byId.get(fresh.id).last_run_at).toBeUndefined();
    expect(byId.get(ran.id)).toMatchObject({ total_runs: 4, success_rate: 50, last_run_status: 'cancelled', last_run_at: ISO, agent_name: agent.body.agent.name });
    const got = await call('GET', `/v1/automations/${ran.id}`, { token: owner.token });
    expect(got.body).toMatchObject({ total_runs: 4, success_rate: 50, last_run_status: 'cancelled' });
    // Oldest first.
    const ids = (list.body.automations as any[]).map((a) => a.id);
    expect(ids.indexOf(fresh.id)).toBeLessThan(ids.indexOf(ran.id));
  });

  test('PATCH changes the given fields (checked like on create); trigger_type and agent_id cannot change', async () => {
    const a = await created(owner, agent.id, { trigger_type: 'cron', cron_expr: '0 3 * * *' });
    const patch = (body: unknown) => call('PATCH', `/v1/automations/${a.id}`, { token: owner.token, body });
    const r = await patch({ name: 'renamed', cron_expr: '0 0 4 * * *', timezone: 'America/New_York', is_active: false, workflow_spec: [{ type: 'log', message: 'v2' }] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: a.id, name: 'renamed', cron_expr: '0 0 4 * * *', timezone: 'America/New_York', is_active: false, workflow_spec: [{ type: 'log', message: 'v2' }],
    });
    expect(new Date(r.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(a.updated_at).getTime());
    const { rows } = await db().query('SELECT version FROM automations WHERE id = $1', [a.id]);
    expect(rows[0].version).toBe(2);
    // The whole record sent back (trigger_type and agent_id unchanged) is accepted.
    expect((await patch({ ...r.body, name: 'again' })).body.name).toBe('again');
    namesField(await patch({}), 'body');
    namesField(await patch({ trigger_type: 'manual' }), 'trigger_type');
    namesField(await patch({ trigger_type: 'cron', agent_id: agent.id }), 'body');
    namesField(await patch({ agent_id: (await registerAgent(owner)).id, name: 'x' }), 'agent_id');
    namesField(await patch({ cron_expr: null }), 'cron_expr');
    namesField(await patch({ cron_expr: '* * *' }), 'cron_expr');
    namesField(await patch({ timezone: 'Nowhere/Land' }), 'timezone');
    namesField(await patch({ event_filter: { event_type: 'secret.created' } }), 'event_filter');
    namesField(await patch({ workflow_spec: [{ type: 'log', message: 'ok' }, { type: 'wait', duration_secs: 31 }] }), 'workflow_spec.steps[1].duration_secs');
    namesField(await patch({ name: '' }), 'name');
    expect((await call('GET', `/v1/automations/${a.id}`, { token: owner.token })).body).toMatchObject({ name: 'again', cron_expr: '0 0 4 * * *' });

    const ev = await created(owner, agent.id, { trigger_type: 'event', event_filter: { event_type: 'policy.created' } });
    const evPatch = await call('PATCH', `/v1/automations/${ev.id}`, { token: owner.token, body: { event_filter: { event_type: 'secret.deleted' } } });
    expect(evPatch.body.event_filter).toEqual({ event_type: 'secret.deleted' });
    expect((await db().query('SELECT event_type FROM automations WHERE id = $1', [ev.id])).rows[0].event_type).toBe('secret.deleted');
    namesField(await call('PATCH', `/v1/automations/${ev.id}`, { token: owner.token, body: { event_filter: { event_type: 'nope' } } }), 'event_filter.event_type');
    const audit = await auditFor(owner, 'automation.update', a.id);
    expect(audit.length).toBeGreaterThanOrEqual(2);
  });

  test('DELETE answers 204, then the automation and its runs are gone (404)', async () => {
    const a = await created(owner, agent.id);
    await db().query(
      `INSERT INTO automation_runs (id, org_id, automation_id, agent_id, status, trigger_source, finished_at)
       VALUES ($1, $2, $3, $4, 'success', 'manual', now())`, [randomUUID(), owner.orgId, a.id, agent.id]);
    const del = await call('DELETE', `/v1/automations/${a.id}`, { token: owner.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await call('GET', `/v1/automations/${a.id}`, { token: owner.token })).status).toBe(404);
    expect((await call('DELETE', `/v1/automations/${a.id}`, { token: owner.token })).status).toBe(404);
    expect((await db().query('SELECT 1 FROM automation_runs WHERE automation_id = $1', [a.id])).rows).toHaveLength(0);
    expect(await auditFor(owner, 'automation.delete', a.id)).toHaveLength(1);
  });

  test('another organization sees none of them: get, patch, delete and rotate are 404; its list is empty', async () => {
    const a = await created(owner, agent.id, { trigger_type: 'webhook' });
    const stranger = await signup('stranger');
    expect((await call('GET', `/v1/automations/${a.id}`, { token: stranger.token })).status).toBe(404);
    expect((await call('PATCH', `/v1/automations/${a.id}`, { token: stranger.token, body: { name: 'mine' } })).status).toBe(404);
    expect((await call('DELETE', `/v1/automations/${a.id}`, { token: stranger.token })).status).toBe(404);
    expect((await call('POST', `/v1/automations/${a.id}/rotate-webhook-token`, { token: stranger.token })).status).toBe(404);
    expect((await call('GET', '/v1/automations', { token: stranger.token })).body).toEqual({ automations: [] });
    expect((await call('GET', '/v1/automations/not-an-id', { token: owner.token })).status).toBe(404);
    expect((await call('GET', `/v1/automations/${a.id}`, { token: owner.token })).body.name).toBe(a.name);
  });
});

describe('who may do what', () => {
  test('a member reads; only owners and admins create, update, delete and rotate', async () => {
    const a = await created(owner, agent.id, { trigger_type: 'webhook' });
    const member = await joinAsMember(owner);
    expect((await call('GET', '/v1/automations', { token: member.token })).body.automations.map((x: any) => x.id)).toContain(a.id);
    expect((await call('GET', `/v1/automations/${a.id}`, { token: member.token })).status).toBe(200);
    expect((await create(member, { name: 'm', agent_id: agent.id, trigger_type: 'manual', workflow_spec: STEPS })).status).toBe(403);
    expect((await call('PATCH', `/v1/automations/${a.id}`, { token: member.token, body: { name: 'm' } })).status).toBe(403);
    expect((await call('DELETE', `/v1/automations/${a.id}`, { token: member.token })).status).toBe(403);
    expect((await call('POST', `/v1/automations/${a.id}/rotate-webhook-token`, { token: member.token })).status).toBe(403);

    const admin = await joinAsAdmin(owner);
    const mine = await created(admin, agent.id);
    expect((await call('PATCH', `/v1/automations/${mine.id}`, { token: admin.token, body: { name: 'by admin' } })).body.name).toBe('by admin');
    expect((await call('POST', `/v1/automations/${a.id}/rotate-webhook-token`, { token: admin.token })).status).toBe(200);
    expect((await call('DELETE', `/v1/automations/${mine.id}`, { token: admin.token })).status).toBe(204);
  });

  test('an agent lists and reads only the automations bound to itself, and manages none', async () => {
    const org = await signup('agents-view');
    await setTier(org, 'pro');
    const [a1, a2] = [await registerAgent(org), await registerAgent(org)];
    const own = await created(org, a1.id, { trigger_type: 'webhook' });
    const other = await created(org, a2.id);
    const jwt = await agentJwt(a1);
    const list = await call('GET', '/v1/automations', { token: jwt });
    expect(list.status).toBe(200);
    expect(list.body.automations.map((x: any) => x.id)).toEqual([own.id]);
    expect((await call('GET', `/v1/automations/${own.id}`, { token: jwt })).status).toBe(200);
    expect((await call('GET', `/v1/automations/${other.id}`, { token: jwt })).status).toBe(404);
    expect((await create(jwt, { name: 'self', agent_id: a1.id, trigger_type: 'manual', workflow_spec: STEPS })).status).toBe(403);
    expect((await call('PATCH', `/v1/automations/${own.id}`, { token: jwt, body: { name: 'x' } })).status).toBe(403);
    expect((await call('DELETE', `/v1/automations/${own.id}`, { token: jwt })).status).toBe(403);
    const rotate = await call('POST', `/v1/automations/${own.id}/rotate-webhook-token`, { token: jwt });
    expect(rotate.status).toBe(403);
    expect(rotate.body.detail).toMatch(/human-only/);
  });
});

describe('webhook token rotation', () => {
  test('returns a new URL and token once; the stored hash changes to the new token\'s', async () => {
    const a = await created(owner, agent.id, { trigger_type: 'webhook' });
    const before = await storedHash(a.id);
    const r = await call('POST', `/v1/automations/${a.id}/rotate-webhook-token`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ webhook_url: expect.stringMatching(new RegExp(`/v1/automations/webhook/${a.id}/${r.body.webhook_token}$`)), webhook_token: expect.stringMatching(WHK) });
    expect(r.body.webhook_token).not.toBe(a.webhook_token);
    const after = await storedHash(a.id);
    expect(after!.equals(before!)).toBe(false);
    expect(after!.toString('hex')).toBe(sha256(r.body.webhook_token));
    const audit = await auditFor(owner, 'automation.rotate_webhook_token', a.id);
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(r.body.webhook_token);
    expect(JSON.stringify((await call('GET', `/v1/automations/${a.id}`, { token: owner.token })).body)).not.toContain(r.body.webhook_token);
  });

  test('an automation that is not webhook-triggered has no token to rotate (400)', async () => {
    const a = await created(owner, agent.id);
    const r = await call('POST', `/v1/automations/${a.id}/rotate-webhook-token`, { token: owner.token });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/webhook/);
    expect(await storedHash(a.id)).toBeNull();
  });
});
