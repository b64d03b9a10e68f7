// Automation runs end to end: a real api, worker, Temporal dev server and Postgres, steps against
// real local receivers. Manual, webhook (both path forms), event and cron triggers; runs moved
// through success, failed, awaiting_approval, cancelled; steps acting as the agent through its
// policies; secret values redacted in run records and absent from Temporal history in plaintext.
import { Client, Connection } from '@temporalio/client';
import { call, closeDb, db, eventually, mailTo, signup, uniqueEmail, type Account } from '../helpers/api.ts';
import { registerAgent, grantAgent, agentJwt, type Agent } from '../helpers/agent-fixtures.ts';
import { newVault, putOk, rnd, secretUrl } from '../helpers/vault-fixtures.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { stackTemporalClient } from '../helpers/temporal-client.ts';
import { runWorkflowId } from '../../domain/automations/run-attributes.ts';
import { AutomationsClient } from '../../domain/automations/client.ts';
import { AutomationSchedules, scheduleIdOf } from '../../domain/automations/schedule-client.ts';
import { pgEm } from '../helpers/pg-em.ts';

let receiver: Receiver;
/** With the stack's payload codec (schedules, workflow lists). */
let temporal: Client;
/** Without it: what the Temporal server stores, as anyone with access to it would see it. */
let rawTemporal: Client;
let owner: Account;
let agent: Agent;
let vaultId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  temporal = await stackTemporalClient();
  rawTemporal = new Client({ connection: await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! }) });
  owner = await signup('automator');
  // Team tier: these tests create more automations than the lower tiers allow.
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [owner.orgId]);
  agent = await registerAgent(owner);
  vaultId = await newVault(owner);
  await grantAgent(owner, vaultId, agent.id, 'app/**', ['read', 'write']);
});
afterAll(async () => {
  await receiver.close();
  await temporal.connection.close();
  await rawTemporal.connection.close();
  await closeDb();
});

async function automation(steps: unknown[], extra: Record<string, unknown> = {}, who: Account = owner, agentId = agent.id): Promise<any> {
  const r = await call('POST', '/v1/automations', {
    token: who.token, body: { name: rnd('auto'), agent_id: agentId, trigger_type: 'manual', workflow_spec: { steps }, ...extra },
  });
  expect(r.status).toBe(201);
  return r.body;
}

/** How the run's workflow ended, as the Temporal UI shows it (its row is written just before it closes). */
const workflowStatus = (runId: string) => eventually('the run\'s workflow to close', async () => {
  const { name } = (await temporal.workflow.getHandle(runWorkflowId(runId)).describe()).status;
  return name === 'RUNNING' ? undefined : name;
});

const trigger = (id: string, body?: unknown, headers?: Record<string, string>, token = owner.token) =>
  call('POST', `/v1/automations/${id}/trigger`, { token, body, headers });

/** The run once it left `running` (or reached `status`). */
async function ended(automationId: string, runId: string, status?: string, timeoutMs = 30_000): Promise<any> {
  return eventually(`run ${runId} ${status ?? 'ended'}`, async () => {
    const r = await call('GET', `/v1/automations/${automationId}/runs/${runId}`, { token: owner.token });
    expect(r.status).toBe(200);
    if (status ? r.body.status === status : r.body.status !== 'running') return r.body;
    return undefined;
  }, timeoutMs);
}

describe('manual trigger', () => {
  test('a three-step run (log, http, log) succeeds; templates reach the receiver; the run record shows every step', async () => {
    const path = `/${rnd('hook')}`;
    const a = await automation([
      { type: 'log', message: 'start {{input.customer}}', name: 'first' },
      { action: 'http_request', params: { url: receiver.url(path), method: 'POST', body: { customer: '{{input.customer}}', note: '{{steps.first.message}}' } } },
      { type: 'log', message: 'got {{steps.1.status}}' },
    ]);
    const t = await trigger(a.id, { input: { customer: 'ACME' } });
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ automation_id: a.id, agent_id: agent.id, status: 'running', trigger_source: 'manual' });
    expect(t.body.run_id).toBe(t.body.id);
    const run = await ended(a.id, t.body.id, 'success');
    const [req] = await receiver.waitFor(1, path);
    expect(req!.body).toEqual({ customer: 'ACME', note: 'start ACME' });
    expect(run.step_results.map((s: any) => [s.type, s.status])).toEqual([['log', 'success'], ['http', 'success'], ['log', 'success']]);
    expect(run.step_results[2].output).toEqual({ message: 'got 200' });
    expect(new Date(run.finished_at).getTime()).toBeGreaterThanOrEqual(new Date(run.started_at).getTime());
    const list = await call('GET', `/v1/automations/${a.id}/runs?limit=10`, { token: owner.token });
    expect(list.body.runs.map((r: any) => r.id)).toEqual([t.body.id]);
    expect(await workflowStatus(t.body.id)).toBe('COMPLETED');
    // Cancelling a run whose workflow has ended is harmless: it stays as it ended.
    expect(await new AutomationsClient(temporal).cancelRun(t.body.id)).toBe('ended');
    expect((await call('GET', `/v1/automations/${a.id}/runs/${t.body.id}`, { token: owner.token })).body.status).toBe('success');
  });

  test('the same Idempotency-Key names the same run: one run, one request', async () => {
    const path = `/${rnd('hook')}`;
    const a = await automation([{ type: 'http', url: receiver.url(path), method: 'POST' }]);
    const key = rnd('key');
    const [r1, r2] = await Promise.all([trigger(a.id, undefined, { 'idempotency-key': key }), trigger(a.id, undefined, { 'idempotency-key': key })]);
    expect(r1.body.id).toBe(r2.body.id);
    await ended(a.id, r1.body.id, 'success');
    expect(receiver.received(path)).toHaveLength(1);
  });

  test('the bound agent may trigger and read its runs; another agent and another organization may not; a disabled automation → 409', async () => {
    const a = await automation([{ type: 'log', message: 'hi' }]);
    const jwt = await agentJwt(agent);
    const t = await trigger(a.id, undefined, undefined, jwt);
    expect(t.status).toBe(200);
    expect((await call('GET', `/v1/automations/${a.id}/runs/${t.body.id}`, { token: jwt })).status).toBe(200);
    const other = await registerAgent(owner);
    expect((await trigger(a.id, undefined, undefined, await agentJwt(other))).status).toBe(404);
    const stranger = await signup('stranger');
    expect((await trigger(a.id, undefined, undefined, stranger.token)).status).toBe(404);
    expect((await call('GET', `/v1/automations/${a.id}/runs/${t.body.id}`, { token: stranger.token })).status).toBe(404);
    expect((await call('PATCH', `/v1/automations/${a.id}`, { token: owner.token, body: { is_active: false } })).status).toBe(200);
    const disabled = await trigger(a.id);
    expect(disabled.status).toBe(409);
    expect(disabled.body.detail).toMatch(/disabled/);
  });
});

describe('steps', () => {
  test('secrets as the agent: put, get (redacted in the record), rotate (event secret.rotated); a path outside its policy fails the run with 403', async () => {
    const a = await automation([
      { type: 'put_secret', vault_id: vaultId, path: 'app/db-password', value: 'hunter2-hunter2' },
      { type: 'get_secret', vault_id: vaultId, path: 'app/db-password', name: 'pw' },
      { type: 'log', message: 'password is {{steps.pw.value}}' },
      { type: 'rotate_generate', params: { vault_id: vaultId, path: 'app/db-password', length: 40, charset: 'hex' } },
    ]);
    const t = await trigger(a.id);
    const run = await ended(a.id, t.body.id, 'success');
    expect(JSON.stringify(run)).not.toContain('hunter2-hunter2');
    expect(run.step_results[1].output).toMatchObject({ path: 'app/db-password', version: 1, value: '[redacted]' });
    expect(run.step_results[2].output).toEqual({ message: 'password is [redacted]' });
    expect(run.step_results[3].output).toMatchObject({ version: 2, length: 40 });
    const now = await call('GET', secretUrl(vaultId, 'app/db-password'), { token: owner.token });
    expect(now.body.value).toMatch(/^[0-9a-f]{40}$/);
    // Temporal's stored history holds no plaintext: the payload codec encrypted it.
    const history = JSON.stringify((await rawTemporal.workflow.getHandle(runWorkflowId(t.body.id)).fetchHistory()).events);
    expect(history).not.toContain('hunter2-hunter2');
    expect(history).not.toContain(now.body.value);

    const denied = await automation([{ type: 'get_secret', vault_id: vaultId, path: 'other/secret' }]);
    await putOk(owner, vaultId, 'other/secret', 'not-for-agents');
    const d = await ended(denied.id, (await trigger(denied.id)).body.id, 'failed');
    expect(d.error).toMatch(/^step 0 \(get_secret\): (403|404)/);
    expect(JSON.stringify(d)).not.toContain('not-for-agents');
  });

  test('memory: put, get and search in the agent\'s namespace', async () => {
    const a = await automation([
      { type: 'memory_put', namespace: 'notes', key: 'lead-1', value: { text: 'interested in enterprise pricing' }, ttl_secs: 3600 },
      { type: 'memory_put', namespace: 'notes', key: 'lead-2', value: { text: 'asked about SSO' } },
      { type: 'memory_get', namespace: 'notes', key: 'lead-1' },
      { type: 'memory_search', namespace: 'notes', query: 'pricing', top_k: 5 },
    ]);
    const run = await ended(a.id, (await trigger(a.id)).body.id, 'success');
    expect(run.step_results[2].output).toMatchObject({ found: true, value: { text: 'interested in enterprise pricing' } });
    expect(run.step_results[3].output.results.map((r: any) => r.key)).toEqual(['lead-1']);
  });

  test('notify: webhook and slack-style chat to receivers, e-mail through the mail outbox; wait is a durable timer', async () => {
    const hook = `/${rnd('notify')}`;
    const slack = `/${rnd('slack')}`;
    const to = uniqueEmail('notified');
    const a = await automation([
      { type: 'notify', channel: 'webhook', url: receiver.url(hook), message: 'deploy done', payload: { build: 7 } },
      { type: 'wait', duration_secs: 1 },
      { type: 'notify', channel: 'slack', webhook_url: receiver.url(slack), message: 'hello chat' },
      { type: 'notify', channel: 'email', to, subject: 'Automation says', message: 'mail body here' },
    ]);
    const t = await trigger(a.id);
    const run = await ended(a.id, t.body.id, 'success');
    const [w] = await receiver.waitFor(1, hook);
    expect(w!.body).toMatchObject({ message: 'deploy done', payload: { build: 7 }, automation_id: a.id, run_id: t.body.id });
    const [s] = await receiver.waitFor(1, slack);
    expect(s!.body).toEqual({ text: 'hello chat' });
    expect(s!.at - w!.at).toBeGreaterThanOrEqual(900);
    await mailTo(to, /mail body here/);
    expect(run.step_results[1].output).toEqual({ waited_secs: 1 });
  });

  test('the http step refuses addresses the outbound policy forbids (cloud metadata)', async () => {
    const a = await automation([{ type: 'http', url: 'http://169.254.169.254/latest/meta-data/' }]);
    const run = await ended(a.id, (await trigger(a.id)).body.id, 'failed');
    expect(run.error).toMatch(/^step 0 \(http\): request failed \(refused\)/);
  });
});

describe('approvals and cancel', () => {
  test('approval_request parks the run; approving resumes it to success; the approval is decided once', async () => {
    const a = await automation([{ type: 'approval_request', summary: { what: 'pay invoice 7' }, risk_tier: 1 }, { type: 'log', message: 'paid' }]);
    const t = await trigger(a.id);
    await ended(a.id, t.body.id, 'awaiting_approval');
    const pending = await eventually('the approval', async () => {
      const r = await call('GET', '/v1/approvals?status=pending', { token: owner.token });
      return r.body.approvals.find((x: any) => x.target_id === t.body.id);
    });
    expect(pending).toMatchObject({ status: 'pending', target_type: 'automation_run', summary: { what: 'pay invoice 7' } });
    expect((await call('POST', `/v1/approvals/${pending.id}/decide`, { token: await agentJwt(agent), body: { decision: 'approve' } })).status).toBe(403);
    const d = await call('POST', `/v1/approvals/${pending.id}/decide`, { token: owner.token, body: { decision: 'approve', reason: 'ok' } });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ status: 'approved', decided_by: owner.userId, decision_reason: 'ok' });
    const run = await ended(a.id, t.body.id, 'success');
    expect(run.step_results[0].output).toMatchObject({ status: 'approved', approval_id: pending.id });
    expect((await call('POST', `/v1/approvals/${pending.id}/decide`, { token: owner.token, body: { decision: 'reject' } })).status).toBe(409);
  });

  test('a value read by get_secret never reaches the approval queue: the step fails and no approval is stored', async () => {
    const marker = rnd('approval-secret');
    await putOk(owner, vaultId, 'app/approval-secret', marker);
    const a = await automation([
      { type: 'get_secret', name: 's', vault_id: vaultId, path: 'app/approval-secret' },
      { type: 'approval_request', summary: { key: '{{steps.s.value}}' }, reason: 'see {{steps.s.value}}', action: 'x-{{steps.s.value}}' },
    ]);
    const t = await trigger(a.id);
    const run = await ended(a.id, t.body.id, 'failed');
    expect(run.error).toBe('step 1 (approval_request): a secret value read by this run cannot be passed to a approval_request step');
    const listed = (await call('GET', '/v1/approvals', { token: owner.token })).body.approvals;
    expect(listed.filter((x: any) => x.target_id === t.body.id)).toEqual([]);
    const { rows } = await db().query('SELECT count(*)::int AS n FROM approvals WHERE row_to_json(approvals)::text LIKE $1', [`%${marker}%`]);
    expect(rows[0].n).toBe(0);
    expect(JSON.stringify(run)).not.toContain(marker);
  });

  test('rejecting (SDK spelling) ends the run failed with the reason', async () => {
    const a = await automation([{ type: 'approval_request', summary: 'rotate prod keys' }]);
    const t = await trigger(a.id);
    await ended(a.id, t.body.id, 'awaiting_approval');
    const approval = (await call('GET', '/v1/approvals?status=pending', { token: owner.token })).body.approvals.find((x: any) => x.target_id === t.body.id);
    await call('POST', `/v1/approvals/${approval.id}/decide`, { token: owner.token, body: { decision: 'rejected', reason: 'not today' } });
    const run = await ended(a.id, t.body.id, 'failed');
    expect(run.error).toBe('step 0 (approval_request): approval rejected: not today');
    // The Temporal UI's badge says so too: the workflow failed, with the run's error.
    expect(await workflowStatus(t.body.id)).toBe('FAILED');
  });

  test('cancel: humans only, while awaiting approval (its approval expires with it); a finished run → 409', async () => {
    const a = await automation([{ type: 'approval_request', summary: 'x' }]);
    const t = await trigger(a.id);
    await ended(a.id, t.body.id, 'awaiting_approval');
    const cancelUrl = `/v1/automations/${a.id}/runs/${t.body.id}/cancel`;
    expect((await call('POST', cancelUrl, { token: await agentJwt(agent) })).status).toBe(403);
    const c = await call('POST', cancelUrl, { token: owner.token });
    expect(c.status).toBe(200);
    expect(c.body.status).toBe('cancelled');
    const again = await call('POST', cancelUrl, { token: owner.token });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/cancelled/);
    const approval = (await call('GET', '/v1/approvals', { token: owner.token })).body.approvals.find((x: any) => x.target_id === t.body.id);
    expect(approval.status).toBe('expired');
    expect(await workflowStatus(t.body.id)).toBe('CANCELLED');
  });

  test('cancel of a run whose workflow never started: it ends cancelled, and a late start of it runs nothing', async () => {
    const path = `/${rnd('never')}`;
    const a = await automation([{ type: 'http', url: receiver.url(path) }]);
    // The row a trigger leaves when Temporal was unreachable: running, no workflow.
    const runId = crypto.randomUUID();
    await db().query(
      `INSERT INTO automation_runs (id, org_id, automation_id, agent_id, trigger_source, context) VALUES ($1, $2, $3, $4, 'manual', '{}'::jsonb)`,
      [runId, owner.orgId, a.id, agent.id]);
    const c = await call('POST', `/v1/automations/${a.id}/runs/${runId}/cancel`, { token: owner.token });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ status: 'cancelled', error: 'cancelled before it started' });
    // The sweeper (or the trigger's own start, arriving late) finds the workflow ID taken.
    const late = await new AutomationsClient(temporal).startRun({
      runId, orgId: owner.orgId, automationId: a.id, agentId: agent.id, triggerType: 'manual', automationName: a.name, timeoutSeconds: 30,
    }, { workflowSpec: a.workflow_spec, context: {} });
    expect(late).toBe(false);
    expect(receiver.received(path)).toEqual([]);
  });

  test('cancel while a step runs', async () => {
    const path = `/${rnd('slow')}`;
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    receiver.respond(path, async () => { await held; return { status: 200 }; });
    const a = await automation([{ type: 'http', url: receiver.url(path), timeout_secs: 30 }, { type: 'log', message: 'never' }]);
    const t = await trigger(a.id);
    await receiver.waitFor(1, path);
    const c = await call('POST', `/v1/automations/${a.id}/runs/${t.body.id}/cancel`, { token: owner.token });
    release();
    expect(c.status).toBe(200);
    expect(c.body.status).toBe('cancelled');
    expect(c.body.step_results.map((s: any) => s.status)).toEqual(['cancelled']);
    expect(await workflowStatus(t.body.id)).toBe('CANCELLED');
  });
});

describe('webhook and event triggers', () => {
  test('both webhook path forms start a run with the body as webhook_payload; a wrong or rotated token → 404', async () => {
    const path = `/${rnd('lead')}`;
    const a = await automation([{ type: 'http', url: receiver.url(path), method: 'POST', body: { email: '{{trigger.lead.email}}', raw: '{{webhook_payload.lead}}' } }], { trigger_type: 'webhook' });
    expect(a.webhook_url).toMatch(new RegExp(`/v1/automations/webhook/${a.id}/whk_`));
    const token = a.webhook_token as string;
    const first = await call('POST', `/v1/automations/webhook/${a.id}/${token}`, { body: { lead: { email: 'x@y.example' } } });
    expect(first.status).toBe(201);
    expect(first.body.trigger_source).toBe('webhook');
    const second = await call('POST', `/v1/automations/${a.id}/webhook/${token}`, { body: { lead: { email: 'z@y.example' } } });
    expect(second.status).toBe(201);
    await ended(a.id, first.body.id, 'success');
    await ended(a.id, second.body.id, 'success');
    const got = (await receiver.waitFor(2, path)).map((r) => r.body);
    expect(got).toEqual(expect.arrayContaining([{ email: 'x@y.example', raw: { email: 'x@y.example' } }, { email: 'z@y.example', raw: { email: 'z@y.example' } }]));
    expect((await call('POST', `/v1/automations/webhook/${a.id}/whk_wrong`, { body: {} })).status).toBe(404);
    const rotated = await call('POST', `/v1/automations/${a.id}/rotate-webhook-token`, { token: owner.token });
    expect(rotated.status).toBe(200);
    expect((await call('POST', `/v1/automations/webhook/${a.id}/${token}`, { body: {} })).status).toBe(404);
    expect((await call('POST', `/v1/automations/webhook/${a.id}/${rotated.body.webhook_token}`, { body: {} })).status).toBe(201);

    // No path form records a token, accepted or refused (the probe found the webhook/{id}/{token}
    // form in audit rows): the routes declare `token` a credential.
    const refused = await eventually('the refused triggers audited', async () => {
      const { rows } = await db().query(
        "SELECT details->>'path' AS path FROM audit_events WHERE action = 'http.request' AND details->>'status' = '404' AND details->>'path' LIKE $1",
        [`/v1/automations/webhook/${a.id}/%`]);
      return rows.length >= 2 ? rows.map((r: any) => r.path) : undefined;
    });
    expect(new Set(refused)).toEqual(new Set([`/v1/automations/webhook/${a.id}/[redacted]`]));
    for (const t of [token, rotated.body.webhook_token, 'whk_wrong']) {
      const { rows } = await db().query('SELECT count(*)::int AS n FROM audit_events WHERE details::text LIKE $1 OR resource_id LIKE $1', [`%${t}%`]);
      expect({ token: t, rows: rows[0].n }).toEqual({ token: t, rows: 0 });
    }
  });

  test('an event trigger fires on a real secret write, with the event as _event; its own agent\'s writes do not re-trigger it', async () => {
    const path = `/${rnd('event')}`;
    const a = await automation([
      { type: 'http', url: receiver.url(path), method: 'POST', body: { type: '{{_event.type}}', path: '{{_event.payload.path}}' } },
      { type: 'put_secret', vault_id: vaultId, path: 'app/touched-by-automation', value: 'x' },
    ], { trigger_type: 'event', event_filter: { event_type: 'secret.created' } });
    await putOk(owner, vaultId, `app/${rnd('fresh')}`, 'v');
    const [req] = await receiver.waitFor(1, path);
    expect(req!.body.type).toBe('secret.created');
    expect(req!.body.path).toMatch(/^app\/fresh-/);
    const runs = await eventually('the event run ended', async () => {
      const r = (await call('GET', `/v1/automations/${a.id}/runs`, { token: owner.token })).body.runs;
      return r.length >= 1 && r.every((x: any) => x.status === 'success') ? r : undefined;
    });
    expect(runs[0].trigger_source).toBe('event');
    expect(runs[0].context._event).toMatchObject({ type: 'secret.created' });
    // The run's own put_secret (secret.created by the agent) started no second run.
    await eventually('the agent\'s write dispatched', async () => {
      const { rows } = await db().query("SELECT 1 FROM event_outbox WHERE org_id = $1 AND payload->>'path' = 'app/touched-by-automation' AND dispatched_at IS NOT NULL", [owner.orgId]);
      return rows.length > 0 ? true : undefined;
    });
    expect((await call('GET', `/v1/automations/${a.id}/runs`, { token: owner.token })).body.runs).toHaveLength(1);
  });
});

describe('cron trigger', () => {
  test('one Temporal Schedule per automation: created with its next run, paused with is_active false, triggered, deleted with it', async () => {
    const a = await automation([{ type: 'log', message: 'tick' }], { trigger_type: 'cron', cron_expr: '0 0 3 * * *', timezone: 'Europe/Berlin' });
    const handle = temporal.schedule.getHandle(scheduleIdOf(a.id));
    const described = await handle.describe();
    expect(described.spec.timezone).toBe('Europe/Berlin');
    expect(described.state.paused).toBe(false);
    const got = await call('GET', `/v1/automations/${a.id}`, { token: owner.token });
    expect(new Date(got.body.next_run_at).getTime()).toBe(described.info.nextActionTimes[0]!.getTime());
    // Temporal's trigger-immediately on the real schedule: the tick starts a cron run.
    await handle.trigger();
    const run = await eventually('the scheduled run', async () => {
      const r = (await call('GET', `/v1/automations/${a.id}/runs`, { token: owner.token })).body.runs;
      return r.find((x: any) => x.status === 'success');
    });
    expect(run.trigger_source).toBe('cron');
    // Operators find it in the UI by search attribute (visibility is eventually consistent).
    const listed = await eventually('the run in Temporal visibility', async () => {
      const found = [];
      for await (const w of temporal.workflow.list({ query: `VaultAutomationId = "${a.id}" AND WorkflowType = "automationRunWorkflow"` })) found.push(w);
      return found.length > 0 ? found : undefined;
    });
    expect(listed.map((w) => w.workflowId)).toEqual([runWorkflowId(run.id)]);
    expect(listed[0]!.memo).toMatchObject({ automation_name: a.name, trigger_type: 'cron' });
    expect((await call('PATCH', `/v1/automations/${a.id}`, { token: owner.token, body: { is_active: false } })).status).toBe(200);
    expect((await handle.describe()).state.paused).toBe(true);
    expect((await call('DELETE', `/v1/automations/${a.id}`, { token: owner.token })).status).toBe(204);
    await expect(handle.describe()).rejects.toThrow();
  });
});

describe('cron schedules stay in step with their rows', () => {
  test('changes whose schedule sync failed (Temporal unreachable then) are applied by the worker\'s sweep', async () => {
    const a = await automation([{ type: 'log', message: 'tick' }], { trigger_type: 'cron', cron_expr: '0 0 3 * * *' });
    const handle = temporal.schedule.getHandle(scheduleIdOf(a.id));
    // What a PATCH leaves when its sync after commit fails: the row a version ahead of its
    // schedule. Here its schedule is also gone, as if the create had never reached Temporal.
    await handle.delete();
    await db().query("UPDATE automations SET cron_expr = '0 30 4 * * *', version = version + 1 WHERE id = $1", [a.id]);
    // The sweep creates the schedule, then records the version it synced: wait for both.
    const rows = await eventually('the schedule re-created and the row brought in step by the sweep', async () => {
      const exists = await handle.describe().then(() => true, () => false);
      const r = await db().query('SELECT version, schedule_version, next_run_at FROM automations WHERE id = $1', [a.id]);
      return exists && r.rows[0].schedule_version === r.rows[0].version ? r.rows : undefined;
    }, 45_000);
    const described = await handle.describe();
    expect(rows[0].schedule_version).toBe(rows[0].version);
    expect(rows[0].next_run_at?.getTime()).toBe(described.info.nextActionTimes[0]!.getTime());
    // The new expression (04:30 UTC), not the old one (03:00).
    expect([rows[0].next_run_at.getUTCHours(), rows[0].next_run_at.getUTCMinutes()]).toEqual([4, 30]);
  });

  test('a schedule Temporal lost while its row stayed in step is created again by the reconcile a worker runs at start', async () => {
    const a = await automation([{ type: 'log', message: 'tick' }], { trigger_type: 'cron', cron_expr: '0 15 5 * * *' });
    const handle = temporal.schedule.getHandle(scheduleIdOf(a.id));
    await handle.delete(); // as after restoring Temporal's state from before the automation existed
    const inStep = await db().query('SELECT version = schedule_version AS in_step FROM automations WHERE id = $1', [a.id]);
    expect(inStep.rows[0].in_step).toBe(true); // the periodic sweep has nothing to catch up
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    await new AutomationSchedules(() => pgEm(db()), temporal, quiet).reconcile({ orphans: true });
    const described = await handle.describe();
    expect(described.state.paused).toBe(false);
    expect([described.info.nextActionTimes[0]!.getUTCHours(), described.info.nextActionTimes[0]!.getUTCMinutes()]).toEqual([5, 15]);
  });
});
