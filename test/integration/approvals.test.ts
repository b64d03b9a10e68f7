// Human-in-the-loop approvals (§4.3c, reference facts §11.1) over HTTP against the real stack:
// agents request (202 + Location) and poll their own, humans list, filter and decide (both
// decision spellings), one decision only, tenancy, lazy expiry, the audit record, and the
// approval.created / approval.decided events reaching an organization webhook.
import { randomUUID } from 'node:crypto';
import { call, closeDb, db, eventually, joinAsMember, signup, type Account, type Res } from '../helpers/api.ts';
import { agentJwt, auditFor, registerAgent, type Agent } from '../helpers/agent-fixtures.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

let receiver: Receiver;
beforeAll(async () => { receiver = await startReceiver(); });
afterAll(async () => {
  await receiver.close();
  await closeDb();
});

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

const isProblem = (r: Res, status: number, detail?: RegExp) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  if (detail) expect(r.body.detail).toMatch(detail);
};

type Setup = { owner: Account; agent: Agent; agentToken: string };

async function setup(tag: string): Promise<Setup> {
  const owner = await signup(tag);
  const agent = await registerAgent(owner);
  return { owner, agent, agentToken: await agentJwt(agent) };
}

const REQUEST = {
  action: 'policy_change', target_type: 'vault', target_id: 'prod', summary: { change: 'grant read on db/*', secret_hint: 'xyzzy-summary' },
  reason: 'deploy needs the database password', risk_tier: 1,
};

async function request(token: string, body: Record<string, unknown> = {}): Promise<any> {
  const r = await call('POST', '/v1/approvals/request', { token, body: { ...REQUEST, ...body } });
  expect(r.status).toBe(202);
  return r.body;
}

const decide = (token: string, id: string, decision: string, reason?: string) =>
  call('POST', `/v1/approvals/${id}/decide`, { token, body: { decision, ...(reason !== undefined ? { reason } : {}) } });

describe('requesting an approval', () => {
  let s: Setup;
  beforeAll(async () => { s = await setup('appr-req'); });

  test('an agent asks: 202, Location to poll, addressed to its creator, pending for 24 hours', async () => {
    const r = await call('POST', '/v1/approvals/request', { token: s.agentToken, body: REQUEST });
    expect(r.status).toBe(202);
    expect(r.headers.get('location')).toBe(`/v1/approvals/${r.body.id}`);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), org_id: s.owner.orgId, user_id: s.owner.userId, agent_id: s.agent.id,
      action: 'policy_change', target_type: 'vault', target_id: 'prod', risk_tier: 1, status: 'pending',
      summary: REQUEST.summary, reason: REQUEST.reason, expires_at: ISO, created_at: ISO,
    });
    const ttl = Date.parse(r.body.expires_at) - Date.parse(r.body.created_at);
    expect(Math.abs(ttl - 24 * 3600 * 1000)).toBeLessThan(60_000);

    const polled = await call('GET', r.headers.get('location')!, { token: s.agentToken });
    expect(polled.status).toBe(200);
    expect(polled.body).toEqual(r.body);
    const status = await call('GET', `/v1/approvals/${r.body.id}/status`, { token: s.agentToken });
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ status: 'pending', expires_at: r.body.expires_at });
  });

  test('the MCP spelling (payload, declared_risk_tier) is accepted; risk tier defaults to 1', async () => {
    const a = await request(s.agentToken, { summary: undefined, risk_tier: undefined, payload: { amount: 5 }, declared_risk_tier: 3 });
    expect(a).toMatchObject({ summary: { amount: 5 }, risk_tier: 3 });
    const b = await request(s.agentToken, { risk_tier: undefined, reason: undefined });
    expect(b.risk_tier).toBe(1);
    expect(b.reason).toBeUndefined();
  });

  test('a human cannot request (403 saying why); bad input is a 400 naming the field', async () => {
    isProblem(await call('POST', '/v1/approvals/request', { token: s.owner.token, body: REQUEST }), 403, /only an agent/i);
    const noSummary = await call('POST', '/v1/approvals/request', { token: s.agentToken, body: { ...REQUEST, summary: undefined } });
    isProblem(noSummary, 400, /summary/);
    isProblem(await call('POST', '/v1/approvals/request', { token: s.agentToken, body: { ...REQUEST, summary: 'text' } }), 400, /summary/);
    isProblem(await call('POST', '/v1/approvals/request', { token: s.agentToken, body: { ...REQUEST, risk_tier: 4 } }), 400, /risk_tier/);
    isProblem(await call('POST', '/v1/approvals/request', { token: s.agentToken, body: { ...REQUEST, action: '' } }), 400, /action/);
  });
});

describe('listing and reading', () => {
  let s: Setup;
  let ids: string[];
  beforeAll(async () => {
    s = await setup('appr-list');
    ids = [];
    for (const target of ['a', 'b', 'c']) ids.push((await request(s.agentToken, { target_id: target })).id);
    expect((await decide(s.owner.token, ids[0]!, 'approve')).status).toBe(200);
  });

  test('humans list newest first, filter by status and page by limit and offset', async () => {
    const all = await call('GET', '/v1/approvals', { token: s.owner.token });
    expect(all.status).toBe(200);
    expect(all.body.approvals.map((a: any) => a.id)).toEqual([...ids].reverse());
    const pending = await call('GET', '/v1/approvals?status=pending', { token: s.owner.token });
    expect(pending.body.approvals.map((a: any) => a.id)).toEqual([ids[2], ids[1]]);
    const approved = await call('GET', '/v1/approvals?status=approved', { token: s.owner.token });
    expect(approved.body.approvals.map((a: any) => a.id)).toEqual([ids[0]]);
    const page = await call('GET', '/v1/approvals?limit=1&offset=1', { token: s.owner.token });
    expect(page.body.approvals.map((a: any) => a.id)).toEqual([ids[1]]);
    isProblem(await call('GET', '/v1/approvals?status=denied', { token: s.owner.token }), 400, /status/);
    isProblem(await call('GET', '/v1/approvals?limit=101', { token: s.owner.token }), 400, /limit/);
    isProblem(await call('GET', '/v1/approvals?offset=-1', { token: s.owner.token }), 400, /offset/);
  });

  test('an agent cannot list (403); it reads and polls only its own approvals', async () => {
    isProblem(await call('GET', '/v1/approvals', { token: s.agentToken }), 403, /humans/i);
    const other = await registerAgent(s.owner);
    const otherToken = await agentJwt(other);
    isProblem(await call('GET', `/v1/approvals/${ids[1]}`, { token: otherToken }), 404);
    isProblem(await call('GET', `/v1/approvals/${ids[1]}/status`, { token: otherToken }), 404);
    const mine = await call('GET', `/v1/approvals/${ids[1]}`, { token: s.agentToken });
    expect(mine.status).toBe(200);
  });

  test('another organization sees nothing: 404 for its humans and agents', async () => {
    const stranger = await setup('appr-stranger');
    for (const path of [`/v1/approvals/${ids[1]}`, `/v1/approvals/${ids[1]}/status`]) {
      isProblem(await call('GET', path, { token: stranger.owner.token }), 404);
      isProblem(await call('GET', path, { token: stranger.agentToken }), 404);
    }
    isProblem(await decide(stranger.owner.token, ids[1]!, 'approve'), 404);
    expect((await call('GET', '/v1/approvals', { token: stranger.owner.token })).body.approvals).toEqual([]);
    isProblem(await call('GET', `/v1/approvals/${randomUUID()}`, { token: s.owner.token }), 404);
    isProblem(await call('GET', '/v1/approvals/not-a-uuid', { token: s.owner.token }), 404);
  });
});

describe('deciding', () => {
  let s: Setup;
  beforeAll(async () => { s = await setup('appr-decide'); });

  test('the human approves once; a second decision is a 409; the audit record keeps no summary', async () => {
    const a = await request(s.agentToken);
    const r = await decide(s.owner.token, a.id, 'approve', 'looks fine');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ...a, status: 'approved', decided_by: s.owner.userId, decided_at: ISO, decision_reason: 'looks fine',
    });
    isProblem(await decide(s.owner.token, a.id, 'reject'), 409, /approved/);
    isProblem(await decide(s.owner.token, a.id, 'approve'), 409);
    const status = await call('GET', `/v1/approvals/${a.id}/status`, { token: s.agentToken });
    expect(status.body.status).toBe('approved');

    const audit = await auditFor(s.owner, 'approval.decide', a.id);
    expect(audit).toHaveLength(1);
    expect(audit[0].details).toEqual(expect.objectContaining({ decision: 'approved', action: 'policy_change', risk_tier: 1 }));
    expect(JSON.stringify(audit)).not.toContain('xyzzy-summary');
  });

  test('both decision spellings: approve|reject (reference) and approved|rejected (SDK)', async () => {
    for (const [decision, status] of [['approve', 'approved'], ['reject', 'rejected'], ['approved', 'approved'], ['rejected', 'rejected']]) {
      const a = await request(s.agentToken);
      const r = await decide(s.owner.token, a.id, decision!);
      expect(r.status).toBe(200);
      expect(r.body.status).toBe(status);
      expect(r.body.decision_reason).toBeUndefined();
    }
    const a = await request(s.agentToken);
    isProblem(await decide(s.owner.token, a.id, 'denied'), 400, /decision/);
    isProblem(await call('POST', `/v1/approvals/${a.id}/decide`, { token: s.owner.token, body: {} }), 400, /decision/);
  });

  test('an agent cannot decide, not even its own request (403 saying why)', async () => {
    const a = await request(s.agentToken);
    isProblem(await decide(s.agentToken, a.id, 'approve'), 403, /only a human can decide an approval/i);
    expect((await call('GET', `/v1/approvals/${a.id}`, { token: s.owner.token })).body.status).toBe('pending');
  });

  test('a member who is not the addressee may read but not decide', async () => {
    const member = await joinAsMember(s.owner, 'appr-member');
    const a = await request(s.agentToken);
    expect((await call('GET', `/v1/approvals/${a.id}`, { token: member.token })).status).toBe(200);
    isProblem(await decide(member.token, a.id, 'approve'), 403, /addressed/);
  });
});

describe('expiry', () => {
  test('a pending approval past expires_at is shown expired, cannot be decided, and is stored expired', async () => {
    const s = await setup('appr-expiry');
    const id = randomUUID();
    await db().query(
      `INSERT INTO approvals (id, org_id, user_id, agent_id, action, target_type, target_id, summary, expires_at, created_at)
       VALUES ($1, $2, $3, $4, 'secret_read', 'secret', 'db/password', '{"why":"late"}', now() - interval '1 minute', now() - interval '1 day')`,
      [id, s.owner.orgId, s.owner.userId, s.agent.id]);

    const listed = await call('GET', '/v1/approvals?status=expired', { token: s.owner.token });
    expect(listed.body.approvals).toEqual([expect.objectContaining({ id, status: 'expired' })]);
    expect((await call('GET', '/v1/approvals?status=pending', { token: s.owner.token })).body.approvals).toEqual([]);
    expect((await call('GET', '/v1/approvals', { token: s.owner.token })).body.approvals).toEqual([expect.objectContaining({ id, status: 'expired' })]);

    isProblem(await decide(s.owner.token, id, 'approve'), 409, /expired/);
    const stored = await db().query('SELECT status, decided_by FROM approvals WHERE id = $1', [id]);
    expect(stored.rows[0]).toEqual({ status: 'expired', decided_by: null });
    const polled = await call('GET', `/v1/approvals/${id}/status`, { token: s.agentToken });
    expect(polled.body).toEqual({ status: 'expired', expires_at: ISO });
  });
});

describe('events', () => {
  test('approval.created and approval.decided reach an organization webhook, without the summary', async () => {
    const s = await setup('appr-events');
    const path = `/approvals-${randomUUID().slice(0, 8)}`;
    const hook = await call('POST', '/v1/webhooks', {
      token: s.owner.token, body: { url: receiver.url(path), events: ['approval.created', 'approval.decided'] },
    });
    expect(hook.status).toBe(201);

    const a = await request(s.agentToken, { risk_tier: 2 });
    // Risk tier 2 asks for the password (or a rat_ token) in X-Auth-Confirm: test/integration/reauth.test.ts.
    const decided = await call('POST', `/v1/approvals/${a.id}/decide`, {
      token: s.owner.token, body: { decision: 'reject', reason: 'not now' }, headers: { 'x-auth-confirm': s.owner.password },
    });
    expect(decided.status).toBe(200);

    const got = await receiver.waitFor(2, path);
    const byType = Object.fromEntries(got.map((g) => [g.body.type, g.body]));
    const common = { approval_id: a.id, action: 'policy_change', target_type: 'vault', target_id: 'prod', risk_tier: 2, agent_id: s.agent.id };
    expect(byType['approval.created']).toMatchObject({ org_id: s.owner.orgId, data: { ...common, status: 'pending' } });
    expect(byType['approval.decided']).toMatchObject({
      org_id: s.owner.orgId, data: { ...common, status: 'rejected', decided_by: s.owner.userId },
    });
    for (const g of got) expect(g.raw).not.toContain('xyzzy-summary');

    // An expiry is a decision too: lazily stored when the approval is touched.
    const id = randomUUID();
    await db().query(
      `INSERT INTO approvals (id, org_id, user_id, agent_id, action, target_type, target_id, summary, expires_at)
       VALUES ($1, $2, $3, $4, 'x', 'y', 'z', '{}', now() - interval '1 second')`, [id, s.owner.orgId, s.owner.userId, s.agent.id]);
    expect((await call('GET', `/v1/approvals/${id}`, { token: s.owner.token })).body.status).toBe('expired');
    const third = await eventually('the expiry event', async () => {
      const all = await receiver.waitFor(3, path);
      return all.find((g) => g.body.data.approval_id === id);
    });
    expect(third.body).toMatchObject({ type: 'approval.decided', data: { approval_id: id, status: 'expired' } });
  });
});
