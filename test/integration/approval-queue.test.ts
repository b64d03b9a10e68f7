// The approval queue (issue 31 §4) over HTTP against the real stack: every agent approval is a
// Temporal workflow that takes the decision as an Update (two humans deciding at once: exactly
// one decision, the other a 409) and expires it by its own timer (seen in the row, with no read
// through the API that could expire it lazily); the risk tiers' step-up (tier 2: the password,
// tier 3: a second-factor rat_ token); the SDK's spellings (POST …/approve and …/deny,
// X-MFA-Token); the quick-decide links mailed to owners and admins (work once, 302 to the
// dashboard, tier 2 refused without a step-up, a wrong decision is a 400; a run approval's link resumes the run).
import { call, closeDb, db, eventually, joinAsMember, mailTo, signup, type Account, type Res } from '../helpers/api.ts';
import { agentJwt, registerAgent, type Agent } from '../helpers/agent-fixtures.ts';
import { enableTotp, codeNext } from '../helpers/totp.ts';
import { checkResponse } from '../helpers/response-check.ts';

afterAll(async () => { await closeDb(); });

const isProblem = (r: Res, status: number, detail?: RegExp) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  if (detail) expect(r.body.detail).toMatch(detail);
};

type Setup = { owner: Account; admin: Account; agent: Agent; agentToken: string };

/** An owner, an admin of the same organization, and the owner's agent. */
async function setup(tag: string): Promise<Setup> {
  const owner = await signup(tag);
  const admin = await joinAsMember(owner, `${tag}-admin`);
  const promoted = await call('PATCH', `/v1/org/members/${admin.userId}`, { token: owner.token, body: { role: 'admin' } });
  expect(promoted.status).toBe(200);
  const agent = await registerAgent(owner);
  return { owner, admin, agent, agentToken: await agentJwt(agent) };
}

async function request(s: Setup, body: Record<string, unknown> = {}): Promise<any> {
  const r = await call('POST', '/v1/approvals/request', {
    token: s.agentToken, body: { action: 'deploy', target_type: 'service', target_id: 'api', summary: { version: '2.0' }, risk_tier: 1, ...body },
  });
  expect(r.status).toBe(202);
  return r.body;
}

const decide = (a: Account, id: string, decision: string, headers: Record<string, string> = {}) =>
  call('POST', `/v1/approvals/${id}/decide`, { token: a.token, body: { decision }, headers });

const eventsOf = async (approvalId: string) => (await db().query(
  "SELECT event_type, payload FROM event_outbox WHERE payload->>'approval_id' = $1 ORDER BY seq", [approvalId])).rows as { event_type: string; payload: any }[];

const storedStatus = async (id: string) => (await db().query('SELECT status FROM approvals WHERE id = $1', [id])).rows[0]?.status as string;

describe('deciding races', () => {
  let s: Setup;
  beforeAll(async () => { s = await setup('aq-race'); });

  test('an owner approves while an admin rejects: exactly one decision, the other gets a 409', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await request(s);
      const [byOwner, byAdmin] = await Promise.all([decide(s.owner, a.id, 'approve'), decide(s.admin, a.id, 'reject')]);
      expect([byOwner.status, byAdmin.status].sort()).toEqual([200, 409]);
      const winner = byOwner.status === 200 ? byOwner : byAdmin;
      const loser = byOwner.status === 200 ? byAdmin : byOwner;
      isProblem(loser, 409, /not pending/i);
      expect(winner.body.status).toBe(byOwner.status === 200 ? 'approved' : 'rejected');
      expect(winner.body.decided_by).toBe(byOwner.status === 200 ? s.owner.userId : s.admin.userId);
      const got = await call('GET', `/v1/approvals/${a.id}`, { token: s.owner.token });
      expect(got.body).toMatchObject({ status: winner.body.status, decided_by: winner.body.decided_by });
      const decidedEvents = (await eventsOf(a.id)).map((e) => e.event_type).filter((t) => t !== 'approval.created' && t !== 'pending_approval.created');
      expect(decidedEvents).toEqual(['approval.decided', `pending_approval.${winner.body.status}`]);
    }
  });

  test('both approve at once: one 200, one 409', async () => {
    const a = await request(s);
    const both = await Promise.all([decide(s.owner, a.id, 'approve'), decide(s.admin, a.id, 'approved')]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await storedStatus(a.id)).toBe('approved');
  });
});

describe('expiry by the workflow timer', () => {
  let s: Setup;
  beforeAll(async () => { s = await setup('aq-expiry'); });

  test('expires_in_seconds: the workflow stores expired by itself, with approval.decided and pending_approval.expired', async () => {
    const a = await request(s, { expires_in_seconds: 2 });
    expect(Date.parse(a.expires_at) - Date.parse(a.created_at)).toBeLessThan(3_000);
    // Only the database is read: no API read that could expire it lazily.
    await eventually('the workflow to expire the approval', async () => ((await storedStatus(a.id)) === 'expired' ? true : undefined));
    const events = await eventsOf(a.id);
    expect(events.map((e) => e.event_type)).toEqual(['approval.created', 'pending_approval.created', 'approval.decided', 'pending_approval.expired']);
    expect(events[3]!.payload).toMatchObject({ approval_id: a.id, status: 'expired' });
    const polled = await call('GET', `/v1/approvals/${a.id}/status`, { token: s.agentToken });
    expect(polled.body).toEqual({ status: 'expired', expires_at: a.expires_at });
    isProblem(await decide(s.owner, a.id, 'approve'), 409, /expired/);
  });

  test('expires_in_seconds out of range (below 2 s, over 7 days, not an integer) is a 400 naming the field', async () => {
    for (const v of [1, 7 * 24 * 3600 + 1, 2.5, '60']) {
      const r = await call('POST', '/v1/approvals/request', {
        token: s.agentToken, body: { action: 'deploy', target_type: 'service', target_id: 'api', summary: {}, expires_in_seconds: v },
      });
      isProblem(r, 400, /expires_in_seconds/);
    }
  });
});

describe('risk tier step-up', () => {
  let s: Setup;
  beforeAll(async () => { s = await setup('aq-tier'); });

  test('tier 2: without X-Auth-Confirm a 401, a wrong password a 401 (nothing decided), the password decides', async () => {
    const a = await request(s, { risk_tier: 2 });
    isProblem(await decide(s.owner, a.id, 'approve'), 401, /risk tier 2 approval needs X-Auth-Confirm/);
    isProblem(await decide(s.owner, a.id, 'approve', { 'x-auth-confirm': 'not-the-password' }), 401);
    expect(await storedStatus(a.id)).toBe('pending');
    const ok = await decide(s.owner, a.id, 'approve', { 'x-auth-confirm': s.owner.password });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('approved');
  });

  test('tier 3: the password is refused (403); a rat_ token made with TOTP decides', async () => {
    const a = await request(s, { risk_tier: 3 });
    isProblem(await decide(s.owner, a.id, 'approve', { 'x-auth-confirm': s.owner.password }), 403, /tier 3/);
    isProblem(await decide(s.owner, a.id, 'approve'), 401, /tier 3/);
    const { secret } = await enableTotp(s.owner);
    const rat = await call('POST', '/v1/auth/reauth', { token: s.owner.token, body: { purpose: 'approval.decide', code: await codeNext(secret) } });
    expect(rat.status).toBe(201);
    const ok = await decide(s.owner, a.id, 'reject', { 'x-auth-confirm': rat.body.reauth_token });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('rejected');
  });
});

describe("the SDK's spellings", () => {
  let s: Setup;
  beforeAll(async () => { s = await setup('aq-sdk'); });

  test('POST …/approve and …/deny (with an optional reason); X-MFA-Token carries the step-up', async () => {
    const a = await request(s);
    const approved = await call('POST', `/v1/approvals/${a.id}/approve`, { token: s.owner.token });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', decided_by: s.owner.userId });

    const b = await request(s, { risk_tier: 2 });
    isProblem(await call('POST', `/v1/approvals/${b.id}/deny`, { token: s.admin.token, body: { reason: 'not now' } }), 401);
    const denied = await call('POST', `/v1/approvals/${b.id}/deny`, { token: s.admin.token, body: { reason: 'not now' }, headers: { 'x-mfa-token': s.admin.password } });
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ status: 'rejected', decision_reason: 'not now', decided_by: s.admin.userId });
    isProblem(await call('POST', `/v1/approvals/${b.id}/approve`, { token: s.owner.token, headers: { 'x-mfa-token': s.owner.password } }), 409);

    // The decide body's SDK values, the reference's, and nothing else.
    const c = await request(s);
    isProblem(await decide(s.owner, c.id, 'maybe'), 400, /decision/);
    expect((await decide(s.owner, c.id, 'rejected')).body.status).toBe('rejected');
    // Agents still cannot decide, whichever route.
    isProblem(await call('POST', `/v1/approvals/${c.id}/approve`, { token: s.agentToken }), 403);
    isProblem(await call('POST', '/v1/approvals/not-an-id/deny', { token: s.owner.token }), 404);
  });
});

/** The mailed link of `to` for approval `id`: its token. */
async function quickToken(to: Account, id: string): Promise<string> {
  const m = await mailTo(to.email, new RegExp(`quick-decide\\?token=(aqd_[A-Za-z0-9_-]{43})&decision=approved[\\s\\S]*Approval id: ${id}`));
  return m[1]!;
}

/** Opens a link the way a browser would, but stops at the redirect; the answer is checked as call() checks one. */
async function openLink(token: string, decision: string): Promise<{ status: number; headers: Headers; body: any }> {
  const url = `/v1/approvals/quick-decide?token=${encodeURIComponent(token)}&decision=${encodeURIComponent(decision)}`;
  const r = await fetch(`${process.env.TEST_API_URL}${url}`, { redirect: 'manual' });
  const text = await r.text();
  let body: any;
  try { body = text ? JSON.parse(text) : undefined; } catch { body = text; }
  await checkResponse(process.env.TEST_API_URL!, { method: 'GET', url, status: r.status, contentType: r.headers.get('content-type'), body, text });
  return { status: r.status, headers: r.headers, body };
}

describe('quick-decide links', () => {
  let s: Setup;
  beforeAll(async () => { s = await setup('aq-quick'); });

  test('the owner and the admin each get a link; one click decides as that human and redirects to the dashboard; a second use is refused', async () => {
    const a = await request(s);
    const ownerToken = await quickToken(s.owner, a.id);
    const adminToken = await quickToken(s.admin, a.id);
    expect(ownerToken).not.toBe(adminToken);
    // Only digests are stored.
    const stored = (await db().query('SELECT token_digest, expires_at - created_at AS life FROM approval_quick_links WHERE approval_id = $1', [a.id])).rows;
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      expect(row.token_digest).toMatch(/^[0-9a-f]{64}$/);
      expect(row.life).toMatchObject({ days: 7 });
    }
    expect(JSON.stringify(stored)).not.toContain(adminToken);

    const wrong = await openLink(adminToken, 'approve');
    expect(wrong.status).toBe(400);
    expect(wrong.body.detail).toMatch(/decision/);

    const r = await openLink(adminToken, 'rejected');
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toMatch(new RegExp(`/approvals/${a.id}\\?decided=true$`));
    expect(r.body).toEqual({ approval_id: a.id, status: 'rejected', location: r.headers.get('location') });
    const got = await call('GET', `/v1/approvals/${a.id}`, { token: s.owner.token });
    expect(got.body).toMatchObject({ status: 'rejected', decided_by: s.admin.userId });

    const again = await openLink(adminToken, 'rejected');
    expect(again.status).toBe(410);
    expect(again.body.detail).toMatch(/already used/);
    // The owner's own link: the approval is no longer pending.
    expect((await openLink(ownerToken, 'approved')).status).toBe(409);
    expect((await openLink('aqd_' + 'x'.repeat(43), 'approved')).status).toBe(404);
  });

  test('a risk tier 2 approval: the link is refused without a step-up (403 naming the dashboard) and stays usable; the dashboard decides it', async () => {
    const a = await request(s, { risk_tier: 2 });
    const token = await quickToken(s.owner, a.id);
    const r = await openLink(token, 'approved');
    expect(r.status).toBe(403);
    const body = (r.body) as any;
    expect(body).toMatchObject({ type: 'step_up_required', approval_id: a.id, risk_tier: 2 });
    expect(body.dashboard_url).toMatch(new RegExp(`/approvals/${a.id}$`));
    expect(body.detail).toMatch(/dashboard/);
    expect(await storedStatus(a.id)).toBe('pending');
    const unused = (await db().query('SELECT used_at FROM approval_quick_links WHERE approval_id = $1 AND user_id = $2', [a.id, s.owner.userId])).rows[0];
    expect(unused.used_at).toBeNull();
    expect((await decide(s.owner, a.id, 'approve', { 'x-auth-confirm': s.owner.password })).status).toBe(200);
  });

  test('an expired link is refused (410)', async () => {
    const a = await request(s);
    const token = await quickToken(s.owner, a.id);
    await db().query("UPDATE approval_quick_links SET expires_at = now() - interval '1 second' WHERE approval_id = $1", [a.id]);
    const r = await openLink(token, 'approved');
    expect(r.status).toBe(410);
    expect(await storedStatus(a.id)).toBe('pending');
  });
});

test('an approval no workflow waits on (its start was lost) is still decided: the decision starts it', async () => {
  const s = await setup('aq-lost');
  const a = await request(s);
  // As if a request had never started its workflow: a copy of the row under a fresh id.
  const id = crypto.randomUUID();
  await db().query(`INSERT INTO approvals (id, org_id, user_id, agent_id, action, target_type, target_id, risk_tier, status, summary, expires_at)
    SELECT $1, org_id, user_id, agent_id, action, target_type, target_id, risk_tier, 'pending', summary, expires_at FROM approvals WHERE id = $2`, [id, a.id]);
  const r = await decide(s.owner, id, 'approve');
  expect(r.status).toBe(200);
  expect(r.body.status).toBe('approved');
});

test("an automation run's approval is mailed too: its quick link resumes the run (through the run's own workflow)", async () => {
  const s = await setup('aq-run');
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [s.owner.orgId]);
  const created = await call('POST', '/v1/automations', {
    token: s.owner.token,
    body: { name: `quick-${Date.now()}`, agent_id: s.agent.id, trigger_type: 'manual', workflow_spec: { steps: [
      { type: 'approval_request', action: 'pay_invoice', summary: { invoice: 7 }, risk_tier: 1 }, { type: 'log', message: 'paid' },
    ] } },
  });
  expect(created.status).toBe(201);
  const run = await call('POST', `/v1/automations/${created.body.id}/trigger`, { token: s.owner.token });
  const runOf = () => call('GET', `/v1/automations/${created.body.id}/runs/${run.body.id}`, { token: s.owner.token });
  const approval = await eventually('the run to wait on its approval', async () => (await call('GET', '/v1/approvals?status=pending', { token: s.owner.token }))
    .body.approvals.find((x: any) => x.target_id === run.body.id));
  expect((await runOf()).body.status).toBe('awaiting_approval');
  const r = await openLink(await quickToken(s.admin, approval.id), 'approved');
  expect(r.status).toBe(302);
  await eventually('the run to resume to success', async () => ((await runOf()).body.status === 'success' ? true : undefined));
  expect((await call('GET', `/v1/approvals/${approval.id}`, { token: s.owner.token })).body).toMatchObject({ status: 'approved', decided_by: s.admin.userId });
});
