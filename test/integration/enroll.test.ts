// Agent self-enrollment (§4.5): pending until a human of an organization approves it; only then
// is a key issued. Rate limited per client address.
import { call, signup, mailTo, uniqueEmail, closeDb, db, type Account } from '../helpers/api.ts';

afterAll(closeDb);

const NIL = '00000000-0000-0000-0000-000000000000';
// The review routes live under /v1/agent-enrollments/ (issue 8: /v1/agents/enroll/{token} made the
// OpenAPI paths ambiguous with /v1/agents/{agent_id}/…).
const tokenOf = (approvalUrl: string) => approvalUrl.split('/v1/agent-enrollments/')[1]!;
// The main api sees every test as 127.0.0.1 and allows 5 enrollments per address per hour:
// the first three tests use three, the last one exhausts the rest.

let owner: Account;
beforeAll(async () => { owner = await signup('enroll-owner'); });

test('link-only enrollment: pending, previewable, approved by an owner who receives the key once', async () => {
  const r = await call('POST', '/v1/agents/enroll', { body: { name: 'self-bot', description: 'asks nicely' } });
  expect(r.status).toBe(201);
  expect(r.body).toEqual(expect.objectContaining({ agent_id: NIL, message: expect.any(String), approval_url: expect.stringContaining('/v1/agent-enrollments/enr_') }));
  const token = tokenOf(r.body.approval_url);

  const preview = await call('GET', `/v1/agent-enrollments/${token}`);
  expect(preview.status).toBe(200);
  expect(preview.body).toEqual(expect.objectContaining({ name: 'self-bot', status: 'pending', human_email_required: false }));
  // Nothing usable exists before approval.
  expect((await call('GET', '/v1/agents', { token: owner.token })).body.agents.some((a: any) => a.name === 'self-bot')).toBe(false);

  expect((await call('POST', `/v1/agent-enrollments/${token}/approve`)).status).toBe(401);
  const approved = await call('POST', `/v1/agent-enrollments/${token}/approve`, { token: owner.token });
  expect(approved.status).toBe(201);
  expect(approved.body.api_key).toMatch(/^ocv_/);
  const agentToken = await call('POST', '/v1/auth/agent-token', { body: { api_key: approved.body.api_key } });
  expect(agentToken.status).toBe(200);
  expect(agentToken.body.agent_id).toBe(approved.body.agent_id);

  // Decided once: a second approval or a denial is a conflict; the token never issues a second key.
  expect((await call('POST', `/v1/agent-enrollments/${token}/approve`, { token: owner.token })).status).toBe(409);
  expect((await call('POST', `/v1/agent-enrollments/${token}/deny`, { token: owner.token })).status).toBe(409);
  // The audit path never shows the approval token.
  const { rows } = await db().query("SELECT count(*)::int AS n FROM audit_events WHERE details::text LIKE $1", [`%${token}%`]);
  expect(rows[0].n).toBe(0);
});

test('with human_email only that human may approve or deny, after an approval mail', async () => {
  const human = await signup('enroll-human');
  const r = await call('POST', '/v1/agents/enroll', { body: { name: 'mailed-bot', human_email: human.email } });
  expect(r.status).toBe(201);
  expect(r.body.approval_url).toBeUndefined();
  const [, token] = await mailTo(human.email, /agent-enrollments\/(enr_[A-Za-z0-9_-]+)\/approve/);
  expect((await call('POST', `/v1/agent-enrollments/${token}/approve`, { token: owner.token })).status).toBe(403);
  // Denying decides as much as approving: an owner of another organization who holds the token
  // may do neither, and the request stays pending for its human.
  const denied = await call('POST', `/v1/agent-enrollments/${token}/deny`, { token: owner.token });
  expect(denied.status).toBe(403);
  expect(denied.headers.get('content-type')).toContain('application/problem+json');
  expect((await call('GET', `/v1/agent-enrollments/${token}`)).body.status).toBe('pending');
  const ok = await call('POST', `/v1/agent-enrollments/${token}/approve`, { token: human.token });
  expect(ok.status).toBe(201);
  expect(ok.body.agent.org_id).toBe(human.orgId);
});

test('denied requests issue nothing; unknown tokens are 404; bad input is 400', async () => {
  const r = await call('POST', '/v1/agents/enroll', { body: { name: 'unwanted' } });
  const token = tokenOf(r.body.approval_url);
  expect((await call('POST', `/v1/agent-enrollments/${token}/deny`, { token: owner.token })).status).toBe(204);
  expect((await call('POST', `/v1/agent-enrollments/${token}/approve`, { token: owner.token })).status).toBe(409);
  expect((await call('GET', '/v1/agent-enrollments/enr_doesnotexistdoesnotexistdoesnotexist12345')).status).toBe(404);
  expect((await call('POST', '/v1/agents/enroll', { body: { name: '' } })).status).toBe(400);
  expect((await call('POST', '/v1/agents/enroll', { body: { name: 'x', human_email: 'not-an-email' } })).status).toBe(400);
});

test('enrollment is rate limited per client address', async () => {
  // Three requests above were accepted from this address; the burst is five.
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await call('POST', '/v1/agents/enroll', { body: { name: `flood-${i}`, human_email: uniqueEmail('flood') } })).status);
  expect(statuses.filter((s) => s === 201).length).toBeLessThanOrEqual(2);
  const limited = await call('POST', '/v1/agents/enroll', { body: { name: 'one-more' } });
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
});
