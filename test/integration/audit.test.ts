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
