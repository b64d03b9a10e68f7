// The audit log (§4.11): every request recorded, scoped to the organization, newest first,
// hash-chained, and the chain check notices tampering.
import { call, signup, login, db, closeDb, type Account } from '../helpers/api.ts';

afterAll(closeDb);

let owner: Account;
beforeAll(async () => { owner = await signup('audit'); });

test('every request is recorded with method, path, principal, IP, status and request id — never a body', async () => {
  const probe = await call('PATCH', '/v1/auth/me', { token: owner.token, body: { display_name: 'Secret Agent Name' } });
  const requestId = probe.headers.get('x-request-id');
  const r = await call('GET', '/v1/audit/events?action=http.request&limit=50', { token: owner.token });
  expect(r.status).toBe(200);
  const event = r.body.events.find((e: any) => e.request_id === requestId);
  expect(event).toEqual(expect.objectContaining({
    action: 'http.request', actor_type: 'user', actor_id: owner.userId, org_id: owner.orgId, ip_address: '127.0.0.1',
    details: expect.objectContaining({ method: 'PATCH', path: '/v1/auth/me', status: 200 }),
  }));
  expect(JSON.stringify(r.body)).not.toContain('Secret Agent Name');
  expect(JSON.stringify(r.body)).not.toContain(owner.token);
});

test('failed requests are recorded with their status too', async () => {
  const bad = await call('POST', '/v1/auth/api-keys', { token: owner.token, body: { name: '' } });
  expect(bad.status).toBe(400);
  const r = await call('GET', '/v1/audit/events?action=http.request&limit=20', { token: owner.token });
  const event = r.body.events.find((e: any) => e.request_id === bad.headers.get('x-request-id'));
  expect(event.details.status).toBe(400);
});

test('events are newest first, filterable by action and paged by cursor', async () => {
  for (let i = 0; i < 3; i++) await call('POST', '/v1/auth/api-keys', { token: owner.token, body: { name: `k${i}` } });
  const all = await call('GET', '/v1/audit/events?action=api_key.create&limit=2', { token: owner.token });
  expect(all.status).toBe(200);
  expect(all.body.count).toBe(2);
  expect(all.body.events.every((e: any) => e.action === 'api_key.create')).toBe(true);
  const [first, second] = all.body.events;
  expect(Date.parse(first.created_at)).toBeGreaterThanOrEqual(Date.parse(second.created_at));
  expect(all.body.next_cursor).toEqual(expect.any(String));
  const next = await call('GET', `/v1/audit/events?action=api_key.create&limit=2&cursor=${all.body.next_cursor}`, { token: owner.token });
  expect(next.body.events).toHaveLength(1);
  const ids = [...all.body.events, ...next.body.events].map((e: any) => e.id);
  expect(new Set(ids).size).toBe(3);
  expect((await call('GET', '/v1/audit/events?cursor=garbage', { token: owner.token })).status).toBe(400);
  expect((await call('GET', '/v1/audit/events?limit=0', { token: owner.token })).status).toBe(400);
  expect((await call('GET', '/v1/audit/events?limit=abc', { token: owner.token })).status).toBe(400);
});

test("an organization never sees another organization's events", async () => {
  const other = await signup('audit-other');
  await call('GET', '/v1/auth/me', { token: other.token });
  const r = await call('GET', '/v1/audit/events?limit=1000', { token: owner.token });
  expect(r.body.events.length).toBeGreaterThan(0);
  expect(r.body.events.every((e: any) => e.org_id === owner.orgId)).toBe(true);
  expect(r.body.events.some((e: any) => e.actor_id === other.userId)).toBe(false);
});

test('members cannot read the audit log; no token is a 401', async () => {
  const member = await signup('audit-member');
  // Make them a member of the owner's organization, then log in again for a token of that org.
  await db().query("UPDATE users SET org_id = $1, role = 'member' WHERE id = $2", [owner.orgId, member.userId]);
  const token = await login(member.email, member.password);
  expect((await call('GET', '/v1/audit/events', { token })).status).toBe(403);
  expect((await call('GET', '/v1/audit/verify', { token })).status).toBe(403);
  expect((await call('GET', '/v1/audit/events')).status).toBe(401);
});

test('the chain verifies, and an edited event is reported as the break', async () => {
  const victim = await signup('audit-chain');
  for (let i = 0; i < 3; i++) await call('GET', '/v1/auth/me', { token: victim.token });
  const ok = await call('GET', '/v1/audit/verify', { token: victim.token });
  expect(ok.status).toBe(200);
  expect(ok.body).toEqual(expect.objectContaining({ chain_valid: true, broken_at_event_id: null }));
  expect(ok.body.events_checked).toBeGreaterThan(3);

  const { rows } = await db().query('SELECT id FROM audit_events WHERE org_id = $1 ORDER BY seq LIMIT 1 OFFSET 2', [victim.orgId]);
  await db().query(`UPDATE audit_events SET details = jsonb_set(details, '{status}', '999') WHERE id = $1`, [rows[0].id]);
  const broken = await call('GET', '/v1/audit/verify', { token: victim.token });
  expect(broken.body.chain_valid).toBe(false);
  expect(broken.body.broken_at_event_id).toBe(rows[0].id);
});

test('deleting the newest event is noticed (as a broken link once newer events follow, else as a head mismatch)', async () => {
  const victim = await signup('audit-tail');
  await call('GET', '/v1/auth/me', { token: victim.token });
  await call('GET', '/v1/audit/verify', { token: victim.token }); // flushes the writer
  await db().query('DELETE FROM audit_events WHERE id = (SELECT id FROM audit_events WHERE org_id = $1 ORDER BY seq DESC LIMIT 1)', [victim.orgId]);
  const r = await call('GET', '/v1/audit/verify', { token: victim.token });
  expect(r.body.chain_valid).toBe(false);
  expect(r.body.broken_at_event_id !== null || r.body.head_matches === false).toBe(true);
});

test('a request whose handler records its own event has exactly that one record; a failed one has the generic record', async () => {
  const created = await call('POST', '/v1/auth/api-keys', { token: owner.token, body: { name: 'one-record' } });
  expect(created.status).toBe(201);
  const failed = await call('POST', '/v1/auth/api-keys', { token: owner.token, body: { name: '' } });
  const all = (await call('GET', '/v1/audit/events?limit=200', { token: owner.token })).body.events;
  const forCreated = all.filter((e: any) => e.request_id === created.headers.get('x-request-id'));
  expect(forCreated).toHaveLength(1);
  expect(forCreated[0]).toEqual(expect.objectContaining({
    action: 'api_key.create', ip_address: '127.0.0.1', actor_id: owner.userId,
    details: expect.objectContaining({ request: { method: 'POST', path: '/v1/auth/api-keys' } }),
  }));
  const forFailed = all.filter((e: any) => e.request_id === failed.headers.get('x-request-id'));
  expect(forFailed.map((e: any) => e.action)).toEqual(['http.request']);
  expect(forFailed[0].details.status).toBe(400);
});

// Issue 8 §5: the reference AuditEvent types resource_type and resource_id (and the actor and
// address fields) as strings. Request records name the route; nothing is ever sent as null.
describe('event fields of the reference', () => {
  test('a request record names its route as the resource', async () => {
    const probe = await call('GET', '/v1/auth/me', { token: owner.token });
    const r = await call('GET', '/v1/audit/events?action=http.request&limit=50', { token: owner.token });
    const event = r.body.events.find((e: any) => e.request_id === probe.headers.get('x-request-id'));
    expect(event).toEqual(expect.objectContaining({ resource_type: 'route', resource_id: 'GET /v1/auth/me' }));
  });

  test('no field is null, even on an old record without a resource or actor (it is omitted instead)', async () => {
    const victim = await signup('audit-nulls');
    await call('GET', '/v1/auth/me', { token: victim.token });
    await call('GET', '/v1/audit/verify', { token: victim.token }); // flushes the writer
    // Records written before every record carried a resource, and records with no actor.
    const { rows } = await db().query(
      `UPDATE audit_events SET resource_type = NULL, resource_id = NULL, actor_type = NULL, actor_id = NULL, ip_address = NULL
       WHERE id = (SELECT id FROM audit_events WHERE org_id = $1 ORDER BY seq DESC LIMIT 1) RETURNING id`, [victim.orgId]);
    const r = await call('GET', '/v1/audit/events?limit=1000', { token: victim.token });
    expect(r.status).toBe(200);
    const old = r.body.events.find((e: any) => e.id === rows[0].id);
    expect(old).toBeDefined();
    for (const field of ['resource_type', 'resource_id', 'actor_type', 'actor_id', 'ip_address']) expect(old).not.toHaveProperty(field);
    for (const e of r.body.events) {
      for (const [k, v] of Object.entries(e)) expect(`${k}=${v}`).not.toBe(`${k}=null`);
    }
    expect(r.body.count).toBe(r.body.events.length);
  });

  test('the reference filters: resource_id, actor_id, from, to; and offset paging', async () => {
    const org = await signup('audit-filters');
    const before = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < 3; i++) expect((await call('POST', '/v1/auth/api-keys', { token: org.token, body: { name: `f${i}` } })).status).toBe(201);
    const all = (await call('GET', '/v1/audit/events?action=api_key.create', { token: org.token })).body.events as any[];
    expect(all).toHaveLength(3);
    const target = all[1];

    const byResource = await call('GET', `/v1/audit/events?resource_id=${encodeURIComponent(target.resource_id)}`, { token: org.token });
    expect(byResource.body.events.map((e: any) => e.id)).toEqual([target.id]);

    const byActor = await call('GET', `/v1/audit/events?actor_id=${org.userId}&action=api_key.create`, { token: org.token });
    expect(byActor.body.events).toHaveLength(3);
    const nobody = await call('GET', '/v1/audit/events?actor_id=someone-else', { token: org.token });
    expect(nobody.body).toEqual({ events: [], count: 0, next_cursor: null });

    const inWindow = await call('GET', `/v1/audit/events?action=api_key.create&from=${encodeURIComponent(before)}&to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { token: org.token });
    expect(inWindow.body.count).toBe(3);
    const future = await call('GET', `/v1/audit/events?action=api_key.create&from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { token: org.token });
    expect(future.body.count).toBe(0);
    const past = await call('GET', `/v1/audit/events?action=api_key.create&to=${encodeURIComponent(before)}`, { token: org.token });
    expect(past.body.count).toBe(0);

    const paged = await call('GET', '/v1/audit/events?action=api_key.create&limit=1&offset=1', { token: org.token });
    expect(paged.body.events.map((e: any) => e.id)).toEqual([target.id]);

    for (const bad of ['from=yesterday', 'to=2024-13-01T00:00:00Z', 'offset=-1', 'offset=abc']) {
      const r = await call('GET', `/v1/audit/events?${bad}`, { token: org.token });
      expect(r.status).toBe(400);
      expect(r.body.detail).toContain(bad.split('=')[0]);
    }
  });

  test('the chain check describes its scheme (reference AuditVerifyResponse)', async () => {
    const r = await call('GET', '/v1/audit/verify', { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      chain_valid: true, events_checked: expect.any(Number), events_verified: r.body.events_checked, broken_at_event_id: null, head_matches: true,
      scheme: { algorithm: 'HMAC-SHA256', chain_structure: expect.any(String), hash_field: 'integrity_hash', link_field: 'prev_hash' },
    });
  });
});
