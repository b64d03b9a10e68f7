// A worker killed with SIGKILL while approvals wait loses nothing: each approval is a Temporal
// workflow, so a new worker picks the waits up where they were. One approval is decided after the
// restart (the Update reaches the resumed workflow); another expires by its workflow's timer while
// no worker runs at all, and is stored expired (with pending_approval.expired) once a worker is
// back. Its own api and worker processes against a fresh database and Temporal namespace
// (IsolatedStack), so the test stack's worker cannot pick up this test's work.
import { call, closeDb } from '../helpers/api.ts';
import { waitFor } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';

const stack = new IsolatedStack('apprcrash');

beforeAll(async () => { await stack.start(); }, 180_000);
afterAll(async () => {
  await stack.stop();
  await closeDb();
});

const rowOf = async (id: string) => (await stack.pool.query('SELECT status, decided_by FROM approvals WHERE id = $1', [id])).rows[0] as { status: string; decided_by: string | null };

test('SIGKILL of the worker while approvals wait: a new worker takes a decision and fires the expiry timer', async () => {
  const base = stack.apiUrl;
  const { token: owner, agentId } = await stack.ownerWithAgent();
  const me = await call('GET', '/v1/auth/me', { base, token: owner });
  const rotated = await call('POST', `/v1/agents/${agentId}/rotate-key`, { base, token: owner });
  expect(rotated.status).toBe(200);
  const jwt = await call('POST', '/v1/auth/agent-token', { base, body: { api_key: rotated.body.api_key, agent_id: agentId } });
  expect(jwt.status).toBe(200);
  const agent = jwt.body.access_token as string;
  const ask = async (body: Record<string, unknown>) => {
    const r = await call('POST', '/v1/approvals/request', {
      base, token: agent, body: { action: 'deploy', target_type: 'service', target_id: 'api', summary: { v: 1 }, ...body },
    });
    expect(r.status).toBe(202);
    return r.body.id as string;
  };
  // A workflow is running once it made its quick-decide links (its first activity).
  const opened = (id: string) => async () =>
    ((await stack.pool.query('SELECT 1 FROM approval_quick_links WHERE approval_id = $1 LIMIT 1', [id])).rowCount ? true : undefined);
  const decided = await ask({ expires_in_seconds: 3600 });
  // The first one also waits out the new worker's start (slow on a busy machine), so the short
  // one below opens well within its 6 s.
  await waitFor('the first approval workflow to open', 120_000, opened(decided));
  const expiring = await ask({ expires_in_seconds: 6 });
  await waitFor('the second approval workflow to open', 30_000, opened(expiring));

  await stack.killWorker();
  // The short one's time runs out while no worker runs: nothing can expire it (no API read does either).
  await waitFor('the short approval to be overdue', 30_000, async () => {
    const r = await stack.pool.query('SELECT expires_at < now() AS overdue FROM approvals WHERE id = $1', [expiring]);
    return r.rows[0].overdue ? true : undefined;
  });
  expect((await rowOf(expiring)).status).toBe('pending');

  stack.startWorker();
  // The decision reaches the waiting workflow through the new worker (the Update waits for one).
  const r = await call('POST', `/v1/approvals/${decided}/decide`, { base, token: owner, body: { decision: 'approve' } });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'approved', decided_by: me.body.id });
  expect(await rowOf(decided)).toEqual({ status: 'approved', decided_by: me.body.id });

  // The expiry timer fired once the new worker ran the workflow again.
  await waitFor('the overdue approval to be expired by its workflow', 60_000, async () => ((await rowOf(expiring)).status === 'expired' ? true : undefined));
  const events = (await stack.pool.query(
    "SELECT event_type FROM event_outbox WHERE payload->>'approval_id' = $1 ORDER BY seq", [expiring])).rows.map((e) => e.event_type);
  expect(events).toEqual(['approval.created', 'pending_approval.created', 'approval.decided', 'pending_approval.expired']);
  // Both workflows ended (their results are encrypted payloads: the rows say how).
  for (const id of [expiring, decided]) {
    await waitFor(`approval:${id} to complete`, 30_000, async () =>
      ((await stack.temporal.workflow.getHandle(`approval:${id}`).describe()).status.name === 'COMPLETED' ? true : undefined));
  }
}, 330_000);
