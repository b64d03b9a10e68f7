// Organization webhooks (§2.11, §4.17) over HTTP against the real stack: CRUD, the one-time
// signing secret, SSRF refusals of destinations, event-name validation, who may manage them,
// tenancy, the per-organization cap, and the delivery history with its manual retry. Delivery
// rows are written straight into the database here (the delivery pipeline has its own tests),
// with events already marked dispatched so the dispatcher leaves them alone.
import { randomUUID } from 'node:crypto';
import { call, closeDb, db, joinAsMember, signup, type Account, type Res } from '../helpers/api.ts';
import { agentJwt, auditFor, registerAgent } from '../helpers/agent-fixtures.ts';

afterAll(closeDb);

const isProblem = (r: Res, status: number, type?: string) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(expect.objectContaining({ status, detail: expect.any(String), ...(type ? { type } : {}) }));
};

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
/** Exempted by the test stack (OUTBOUND_ALLOW_CIDRS=127.0.0.0/8), so plain http is allowed too. */
const HOOK_URL = 'http://127.0.0.1:9/hook';

async function createWebhook(a: Account, body: Record<string, unknown> = {}): Promise<any> {
  const r = await call('POST', '/v1/webhooks', { token: a.token, body: { url: HOOK_URL, events: ['policy.created'], ...body } });
  expect(r.status).toBe(201);
  return r.body;
}

type DeliverySeed = { status?: string; createdAt?: string; attempts?: { status_code: number | null; error: string | null }[]; workflowStarted?: boolean };

/** A delivery of a (dispatched) event to the webhook, with its attempts. */
async function seedDelivery(orgId: string, webhookId: string, s: DeliverySeed = {}): Promise<string> {
  const eventId = randomUUID();
  const id = randomUUID();
  await db().query(
    `INSERT INTO event_outbox (id, org_id, event_type, payload, dispatched_at) VALUES ($1, $2, 'policy.created', '{}'::jsonb, now())`, [eventId, orgId]);
  const status = s.status ?? 'failed';
  await db().query(
    `INSERT INTO webhook_deliveries (id, webhook_id, org_id, event_id, event_type, status, attempt_count, last_status_code, last_error,
       created_at, workflow_started_at, completed_at)
     VALUES ($1, $2, $3, $4, 'policy.created', $5, $6, $7, $8, coalesce($9::timestamptz, now()), $10, CASE WHEN $5 = 'pending' THEN NULL ELSE now() END)`,
    [id, webhookId, orgId, eventId, status, s.attempts?.length ?? 0, s.attempts?.at(-1)?.status_code ?? null,
      s.attempts?.at(-1)?.error ?? null, s.createdAt ?? null, s.workflowStarted === false ? null : new Date()]);
  for (const [i, a] of (s.attempts ?? []).entries()) {
    await db().query(
      `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, run, duration_ms, status_code, response_excerpt, error)
       VALUES ($1, $2, 1, 12, $3, $4, $5)`, [id, i + 1, a.status_code, a.status_code === null ? null : 'nope', a.error]);
  }
  return id;
}

describe('webhook CRUD', () => {
  let owner: Account;
  beforeAll(async () => { owner = await signup('wh-crud'); });

  test('create returns the whsec_ secret once; list and get never show it, nor does the audit record', async () => {
    const created = await call('POST', '/v1/webhooks', {
      token: owner.token, body: { url: HOOK_URL, events: ['policy.created', 'policy.created', '*'], description: 'ops' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), url: HOOK_URL, events: ['policy.created', '*'], is_active: true,
      description: 'ops', created_at: ISO, updated_at: ISO, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { id, secret } = created.body;

    const list = await call('GET', '/v1/webhooks', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.webhooks).toEqual([expect.objectContaining({ id, url: HOOK_URL, is_active: true })]);
    const one = await call('GET', `/v1/webhooks/${id}`, { token: owner.token });
    expect(one.status).toBe(200);
    for (const r of [list, one]) {
      expect(r.text).not.toContain(secret);
      expect(r.text).not.toContain('"secret"');
    }
    expect(one.body).toEqual({ ...created.body, secret: undefined });

    const audit = await auditFor(owner, 'webhook.create', id);
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(secret);
    expect(audit[0].details).toEqual(expect.objectContaining({ url_origin: 'http://127.0.0.1:9', events: ['policy.created', '*'] }));
  });

  test('list is oldest first; patch url, events, description; is_active false; delete is 204, then 404', async () => {
    const a = await signup('wh-crud-2');
    const first = await createWebhook(a, { description: 'first' });
    const second = await createWebhook(a, { events: ['*'] });
    expect(second).not.toHaveProperty('description');
    expect((await call('GET', '/v1/webhooks', { token: a.token })).body.webhooks.map((w: any) => w.id)).toEqual([first.id, second.id]);

    const patched = await call('PATCH', `/v1/webhooks/${first.id}`, {
      token: a.token, body: { url: 'http://127.0.0.1:10/other', events: ['secret.created', 'agent.deleted'], description: 'changed' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual(expect.objectContaining({
      id: first.id, url: 'http://127.0.0.1:10/other', events: ['secret.created', 'agent.deleted'], description: 'changed', is_active: true,
    }));
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(first.updated_at));

    const off = await call('PATCH', `/v1/webhooks/${first.id}`, { token: a.token, body: { is_active: false } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual(expect.objectContaining({ is_active: false, url: 'http://127.0.0.1:10/other', description: 'changed' }));
    const cleared = await call('PATCH', `/v1/webhooks/${first.id}`, { token: a.token, body: { description: null } });
    expect(cleared.body).not.toHaveProperty('description');

    const del = await call('DELETE', `/v1/webhooks/${first.id}`, { token: a.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    isProblem(await call('GET', `/v1/webhooks/${first.id}`, { token: a.token }), 404);
    isProblem(await call('DELETE', `/v1/webhooks/${first.id}`, { token: a.token }), 404);
    expect((await call('GET', '/v1/webhooks', { token: a.token })).body.webhooks.map((w: any) => w.id)).toEqual([second.id]);
  });

  test('PATCH without any field is a 400; unknown and malformed ids are 404', async () => {
    const w = await createWebhook(owner);
    isProblem(await call('PATCH', `/v1/webhooks/${w.id}`, { token: owner.token, body: {} }), 400);
    for (const id of [randomUUID(), 'not-a-uuid', "1' OR '1'='1"]) {
      isProblem(await call('GET', `/v1/webhooks/${encodeURIComponent(id)}`, { token: owner.token }), 404);
    }
  });
});

describe('input validation', () => {
  let owner: Account;
  beforeAll(async () => { owner = await signup('wh-input'); });

  const create = (body: unknown) => call('POST', '/v1/webhooks', { token: owner.token, body });

  test('unknown event names are a 400 naming each of them; empty or missing events are a 400', async () => {
    const r = await create({ url: HOOK_URL, events: ['policy.created', 'nope.one', 'nope.two', 'nope.one'] });
    isProblem(r, 400);
    expect(r.body.detail).toContain('nope.one');
    expect(r.body.detail).toContain('nope.two');
    expect(r.body.detail).not.toContain('policy.created');
    isProblem(await create({ url: HOOK_URL, events: [] }), 400);
    isProblem(await create({ url: HOOK_URL }), 400);
    const patch = await call('PATCH', `/v1/webhooks/${(await createWebhook(owner)).id}`, { token: owner.token, body: { events: ['bogus.event'] } });
    isProblem(patch, 400);
    expect(patch.body.detail).toContain('bogus.event');
  });

  test('a missing URL, and destinations the SSRF policy refuses, are a 400 naming url', async () => {
    const missing = await create({ events: ['*'] });
    isProblem(missing, 400);
    expect(missing.body.detail).toContain('url');
    const refused: [string, RegExp][] = [
      ['http://example.com/hook', /https is required/],
      ['https://10.0.0.1/', /10\.0\.0\.1.*not allowed/],
      ['https://169.254.169.254/', /metadata/],
      ['https://[::ffff:169.254.169.254]/', /not allowed/],
      ['https://metadata.google.internal/', /internal/],
      ['https://foo.local./x', /internal/],
      ['https://user:pw@example.com/', /credentials/],
      ['ftp://example.com/', /http/],
      ['https://does-not-exist.invalid/hook', /resolve/],
    ];
    for (const [url, reason] of refused) {
      const r = await create({ url, events: ['*'] });
      expect({ url, status: r.status }).toEqual({ url, status: 400 });
      expect({ url, detail: r.body.detail }).toEqual({ url, detail: expect.stringMatching(/^url: /) });
      expect({ url, detail: r.body.detail }).toEqual({ url, detail: expect.stringMatching(reason) });
    }
    const w = await createWebhook(owner);
    isProblem(await call('PATCH', `/v1/webhooks/${w.id}`, { token: owner.token, body: { url: 'https://169.254.169.254/latest' } }), 400);
    expect((await call('GET', `/v1/webhooks/${w.id}`, { token: owner.token })).body.url).toBe(HOOK_URL);
  });

  test('a description over 500 characters is a 400', async () => {
    isProblem(await create({ url: HOOK_URL, events: ['*'], description: 'x'.repeat(501) }), 400);
  });
});

describe('who may manage webhooks', () => {
  test('401 without a token; an agent and a plain member get 403', async () => {
    const owner = await signup('wh-rights');
    const w = await createWebhook(owner);
    isProblem(await call('GET', '/v1/webhooks'), 401);
    isProblem(await call('POST', '/v1/webhooks', { body: { url: HOOK_URL, events: ['*'] } }), 401);

    const agent = await agentJwt(await registerAgent(owner));
    isProblem(await call('GET', '/v1/webhooks', { token: agent }), 403);
    isProblem(await call('POST', '/v1/webhooks', { token: agent, body: { url: HOOK_URL, events: ['*'] } }), 403);

    const member = await joinAsMember(owner);
    isProblem(await call('GET', '/v1/webhooks', { token: member.token }), 403);
    isProblem(await call('GET', `/v1/webhooks/${w.id}`, { token: member.token }), 403);
    isProblem(await call('POST', '/v1/webhooks', { token: member.token, body: { url: HOOK_URL, events: ['*'] } }), 403);
    isProblem(await call('PATCH', `/v1/webhooks/${w.id}`, { token: member.token, body: { is_active: false } }), 403);
    isProblem(await call('DELETE', `/v1/webhooks/${w.id}`, { token: member.token }), 403);
    isProblem(await call('GET', `/v1/webhooks/${w.id}/deliveries`, { token: member.token }), 403);
    expect((await call('GET', `/v1/webhooks/${w.id}`, { token: owner.token })).body.is_active).toBe(true);
  });

  test("another organization's webhook and delivery ids are 404 on every route", async () => {
    const owner = await signup('wh-tenant-a');
    const stranger = await signup('wh-tenant-b');
    const w = await createWebhook(owner);
    const deliveryId = await seedDelivery(owner.orgId, w.id);
    const t = { token: stranger.token };
    isProblem(await call('GET', `/v1/webhooks/${w.id}`, t), 404);
    isProblem(await call('PATCH', `/v1/webhooks/${w.id}`, { ...t, body: { is_active: false } }), 404);
    isProblem(await call('DELETE', `/v1/webhooks/${w.id}`, t), 404);
    isProblem(await call('GET', `/v1/webhooks/${w.id}/deliveries`, t), 404);
    isProblem(await call('GET', `/v1/webhooks/${w.id}/deliveries/${deliveryId}`, t), 404);
    isProblem(await call('POST', `/v1/webhooks/${w.id}/deliveries/${deliveryId}/retry`, t), 404);
    // Its own webhook id with the other organization's delivery id is no better.
    const own = await createWebhook(stranger);
    isProblem(await call('GET', `/v1/webhooks/${own.id}/deliveries/${deliveryId}`, t), 404);
    isProblem(await call('POST', `/v1/webhooks/${own.id}/deliveries/${deliveryId}/retry`, t), 404);
    expect((await call('GET', '/v1/webhooks', t)).body.webhooks.map((x: any) => x.id)).toEqual([own.id]);
    // Untouched.
    const still = await call('GET', `/v1/webhooks/${w.id}`, { token: owner.token });
    expect(still.body.is_active).toBe(true);
    expect((await call('GET', `/v1/webhooks/${w.id}/deliveries/${deliveryId}`, { token: owner.token })).body.status).toBe('failed');
  });
});

describe('the per-organization cap', () => {
  test('50 webhooks per organization; the 51st is 403 resource_limit_exceeded', async () => {
    const owner = await signup('wh-cap');
    // 49 rows straight into the table, then the API creates the 50th and refuses the 51st.
    await db().query(
      `INSERT INTO webhooks (id, org_id, url, events, secret_sealed)
       SELECT gen_random_uuid(), $1, $2, ARRAY['*'], '\\x00'::bytea FROM generate_series(1, 49)`, [owner.orgId, HOOK_URL]);
    await createWebhook(owner);
    const over = await call('POST', '/v1/webhooks', { token: owner.token, body: { url: HOOK_URL, events: ['*'] } });
    isProblem(over, 403, 'resource_limit_exceeded');
    expect(over.body).toEqual(expect.objectContaining({ resource: 'webhooks', limit: 50, used: 50 }));
    expect((await call('GET', '/v1/webhooks', { token: owner.token })).body.webhooks).toHaveLength(50);
  });
});

describe('delivery history and retry', () => {
  let owner: Account;
  beforeAll(async () => { owner = await signup('wh-deliveries'); });

  test('a new webhook has no deliveries', async () => {
    const w = await createWebhook(owner);
    const r = await call('GET', `/v1/webhooks/${w.id}/deliveries`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ deliveries: [] });
  });

  test('newest first with attempts in order; status filter; cursor pages miss and repeat nothing', async () => {
    const w = await createWebhook(owner);
    // Two share a created_at to the microsecond: the id breaks the tie.
    const seeds: [string, DeliverySeed][] = [
      ['a', { createdAt: '2024-05-01T10:00:00.000001Z', status: 'succeeded', attempts: [{ status_code: 200, error: null }] }],
      ['b', { createdAt: '2024-05-01T10:00:00.000002Z', attempts: [{ status_code: null, error: 'connection refused' }, { status_code: 500, error: null }] }],
      ['c', { createdAt: '2024-05-01T10:00:00.000002Z', status: 'cancelled' }],
      ['d', { createdAt: '2024-05-01T10:00:00.000003Z' }],
      ['e', { createdAt: '2024-05-02T00:00:00Z', status: 'succeeded' }],
    ];
    const ids: Record<string, string> = {};
    for (const [name, s] of seeds) ids[name] = await seedDelivery(owner.orgId, w.id, s);
    const [tieHigh, tieLow] = [ids.b!, ids.c!].sort().reverse();
    const expected = [ids.e, ids.d, tieHigh, tieLow, ids.a];

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await call('GET', `/v1/webhooks/${w.id}/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: owner.token });
      expect(r.status).toBe(200);
      expect(r.body.deliveries.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.deliveries.map((d: any) => d.id));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(expected);

    const b = (await call('GET', `/v1/webhooks/${w.id}/deliveries/${ids.b}`, { token: owner.token })).body;
    expect(b).toEqual({
      id: ids.b, webhook_id: w.id, event_id: expect.any(String), event_type: 'policy.created', status: 'failed', attempt_count: 2,
      last_status_code: 500, created_at: '2024-05-01T10:00:00.000Z', completed_at: ISO,
      attempts: [
        { attempt: 1, run: 1, started_at: ISO, duration_ms: 12, error: 'connection refused' },
        { attempt: 2, run: 1, started_at: ISO, duration_ms: 12, status_code: 500, response_excerpt: 'nope' },
      ],
    });

    const succeeded = await call('GET', `/v1/webhooks/${w.id}/deliveries?status=succeeded`, { token: owner.token });
    expect(succeeded.body.deliveries.map((d: any) => d.id)).toEqual([ids.e, ids.a]);
    expect(succeeded.body).not.toHaveProperty('next_cursor');
    expect(succeeded.body.deliveries[1].attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 200 })]);

    isProblem(await call('GET', `/v1/webhooks/${w.id}/deliveries?status=lost`, { token: owner.token }), 400);
    isProblem(await call('GET', `/v1/webhooks/${w.id}/deliveries?limit=101`, { token: owner.token }), 400);
    isProblem(await call('GET', `/v1/webhooks/${w.id}/deliveries?cursor=bm90LWEtY3Vyc29y`, { token: owner.token }), 400);
  });

  test('retry: 202 pending as a new run; 409 while in progress or when the webhook is disabled; unknown ids 404', async () => {
    const w = await createWebhook(owner);
    const failed = await seedDelivery(owner.orgId, w.id, { attempts: [{ status_code: 503, error: null }] });
    const r = await call('POST', `/v1/webhooks/${w.id}/deliveries/${failed}/retry`, { token: owner.token });
    expect(r.status).toBe(202);
    expect(r.body).toEqual(expect.objectContaining({ id: failed, webhook_id: w.id, status: 'pending' }));
    expect(r.body).not.toHaveProperty('completed_at');
    const row = (await db().query('SELECT run, queued_at > created_at AS requeued FROM webhook_deliveries WHERE id = $1', [failed])).rows[0];
    expect(row).toEqual({ run: 2, requeued: true });
    expect(await auditFor(owner, 'webhook.delivery_retry', failed)).toHaveLength(1);

    const inProgress = await seedDelivery(owner.orgId, w.id, { status: 'pending' });
    const busy = await call('POST', `/v1/webhooks/${w.id}/deliveries/${inProgress}/retry`, { token: owner.token });
    isProblem(busy, 409);
    expect(busy.body.detail).toMatch(/in progress/);

    isProblem(await call('POST', `/v1/webhooks/${w.id}/deliveries/${randomUUID()}/retry`, { token: owner.token }), 404);
    isProblem(await call('POST', `/v1/webhooks/${randomUUID()}/deliveries/${failed}/retry`, { token: owner.token }), 404);
    isProblem(await call('GET', `/v1/webhooks/${w.id}/deliveries/${randomUUID()}`, { token: owner.token }), 404);

    // Disabling cancels what is pending, in the same transaction, and a retry is then refused.
    expect((await call('PATCH', `/v1/webhooks/${w.id}`, { token: owner.token, body: { is_active: false } })).status).toBe(200);
    const cancelled = (await call('GET', `/v1/webhooks/${w.id}/deliveries/${inProgress}`, { token: owner.token })).body;
    expect(cancelled).toEqual(expect.objectContaining({ status: 'cancelled', last_error: 'webhook disabled', completed_at: ISO }));
    const old = await seedDelivery(owner.orgId, w.id, { status: 'succeeded' });
    const disabled = await call('POST', `/v1/webhooks/${w.id}/deliveries/${old}/retry`, { token: owner.token });
    isProblem(disabled, 409);
    expect(disabled.body.detail).toMatch(/disabled/);
  });

  test('deleting a webhook deletes its deliveries', async () => {
    const w = await createWebhook(owner);
    const d = await seedDelivery(owner.orgId, w.id, { attempts: [{ status_code: 500, error: null }] });
    expect((await call('DELETE', `/v1/webhooks/${w.id}`, { token: owner.token })).status).toBe(204);
    expect((await db().query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = $1', [d])).rows[0].n).toBe(0);
    expect((await db().query('SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = $1', [d])).rows[0].n).toBe(0);
  });
});
