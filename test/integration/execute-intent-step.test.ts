// The execute_intent automation step (issue 14 §2) and the README's example of issue 14: an
// automation reads a status page with an http step, summarises it with ai_generate (the model key
// in a vault) and posts the summary through an execution binding (its credential in a vault). The
// agent never sees either credential: both arrive where they belong, and neither appears in the run
// record, the stack's log or Temporal history; what the bound API echoes back is redacted. A
// request outside the binding's guardrails fails the step with the guardrail named, and nothing is
// sent.
import fs from 'node:fs';
import path from 'node:path';
import { call, closeDb, db, eventually, signup, type Account } from '../helpers/api.ts';
import { grantAgent, registerAgent, type Agent } from '../helpers/agent-fixtures.ts';
import { newVault, putOk, rnd } from '../helpers/vault-fixtures.ts';
import { startFakeAiServer, type FakeAiServer } from '../helpers/fake-ai-server.ts';
import { startFakeBindingApi, type FakeBindingApi } from '../helpers/fake-binding-api.ts';
import { STACK_AI_MODEL } from '../helpers/shared-ai-server.ts';
import { historyText } from '../helpers/history-text.ts';
import { runWorkflowId } from '../../domain/automations/run-attributes.ts';

const MODEL_KEY = `sk-summary-${rnd('k')}`;
const CHAT_TOKEN = `chat-token-${rnd('t')}`;

let owner: Account;
let agent: Agent;
let vaultId: string;
let model: FakeAiServer;
let chat: FakeBindingApi;

beforeAll(async () => {
  model = await startFakeAiServer('openai', { apiKey: MODEL_KEY });
  chat = await startFakeBindingApi();
  owner = await signup('exec-step');
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [owner.orgId]);
  agent = await registerAgent(owner, { execution_intents_enabled: true });
  vaultId = await newVault(owner);
  await grantAgent(owner, vaultId, agent.id, 'integrations/**', ['read']);
  await putOk(owner, vaultId, 'integrations/openai', MODEL_KEY);
  await putOk(owner, vaultId, 'integrations/chat', CHAT_TOKEN);
  const b = await call('POST', `/v1/agents/${agent.id}/bindings`, {
    token: owner.token,
    body: {
      name: 'team-chat', binding_type: 'http',
      config: { base_url: chat.url, allowed_methods: ['GET', 'POST'], allowed_paths: ['/status', '/messages'] },
      credential_source: { type: 'vault_ref', vault_id: vaultId, path: 'integrations/chat' },
    },
  });
  expect(b.status).toBe(201);
});
afterAll(async () => {
  await model.stop();
  await chat.close();
  await closeDb();
});
beforeEach(() => { model.reset(); chat.clear(); chat.respond(null); chat.leak(null); });

async function run(steps: unknown[]): Promise<{ automationId: string; runId: string }> {
  const a = await call('POST', '/v1/automations', {
    token: owner.token, body: { name: rnd('summary'), agent_id: agent.id, trigger_type: 'manual', workflow_spec: { steps } },
  });
  expect({ status: a.status, body: a.status === 201 ? undefined : a.body }).toEqual({ status: 201, body: undefined });
  const t = await call('POST', `/v1/automations/${a.body.id}/trigger`, { token: owner.token });
  expect(t.status).toBe(200);
  return { automationId: a.body.id, runId: t.body.id };
}

async function ended(r: { automationId: string; runId: string }): Promise<any> {
  return eventually(`run ${r.runId} ends`, async () => {
    const res = await call('GET', `/v1/automations/${r.automationId}/runs/${r.runId}`, { token: owner.token });
    expect(res.status).toBe(200);
    return res.body.status === 'running' ? undefined : res.body;
  }, 60_000);
}

test('an http answer summarised by ai_generate and posted through a binding; neither credential leaks', async () => {
  chat.respond((req) => req.method === 'GET'
    ? { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api: 'degraded', queue_depth: 812 }) }
    // The chat API echoes the token it was given: the step's output must not carry it.
    : { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ok: true, seen_authorization: req.headers.authorization }) });
  model.script({ text: 'API degraded; 812 jobs queued.', usage: { input: 40, output: 9 } });
  const r = await run([
    { type: 'execute_intent', name: 'status', params: { binding: 'team-chat', params: { method: 'GET', path: '/status' } } },
    {
      type: 'ai_generate', name: 'summary', provider: 'openai', base_url: model.baseUrl, model: STACK_AI_MODEL,
      api_key_secret: { vault_id: vaultId, path: 'integrations/openai' },
      prompt: 'Summarise in one line: {{steps.status.result.body}}',
    },
    { type: 'execute_binding', name: 'post', params: { binding: 'team-chat', params: { method: 'POST', path: '/messages', body: { text: '{{steps.summary.text}}' } } } },
  ]);
  const done = await ended(r);
  expect({ status: done.status, error: done.error }).toEqual({ status: 'success', error: undefined });

  expect(model.requests()[0]!.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
  expect(model.requests()[0]!.body.messages.at(-1).content).toBe('Summarise in one line: {"api":"degraded","queue_depth":812}');
  const [get, post] = chat.received();
  expect(get).toMatchObject({ method: 'GET', path: '/status' });
  expect(post).toMatchObject({ method: 'POST', path: '/messages' });
  expect(post!.headers.authorization).toBe(`Bearer ${CHAT_TOKEN}`);
  expect(JSON.parse(post!.body)).toEqual({ text: 'API degraded; 812 jobs queued.' });

  const out = done.step_results[2].output;
  expect(out).toMatchObject({ status: 'success', redactions_applied: 1, result: { status: 201, body: { ok: true } } });
  expect(out.result.body.seen_authorization).not.toContain(CHAT_TOKEN);
  expect(done.tokens_used).toBe(49);

  const history = await historyText(runWorkflowId(r.runId));
  const log = fs.readFileSync(path.join(process.env.TEST_DATA_DIR!, 'stack.log'), 'utf8');
  const row = (await db().query('SELECT step_results::text, context::text, error FROM automation_runs WHERE id = $1', [r.runId])).rows[0];
  for (const [where, text] of [['run record', JSON.stringify(done)], ['run row', JSON.stringify(row)], ['stack log', log],
    ['stored history', history.stored], ['decoded history', history.decoded]] as const) {
    for (const secret of [MODEL_KEY, CHAT_TOKEN]) expect({ where, leaked: text.includes(secret) }).toEqual({ where, leaked: false });
  }
});

test('a request outside the binding\'s guardrails fails the step, naming the guardrail; nothing is sent', async () => {
  const done = await ended(await run([
    { type: 'execute_intent', params: { binding: 'team-chat', params: { method: 'POST', path: '/messages/../admin' } } },
    { type: 'log', message: 'never reached' },
  ]));
  expect(done.status).toBe('failed');
  expect(done.step_results[0]).toMatchObject({ type: 'execute_intent', status: 'failed' });
  expect(done.step_results[0].error).toMatch(/^403 .*allowed_paths|^403 .*path/);
  expect(done.step_results).toHaveLength(1);
  expect(chat.received()).toEqual([]);
});

test('an unknown binding and a missing params object are refused clearly', async () => {
  const unknown = await ended(await run([{ type: 'execute_intent', params: { binding: 'no-such-binding', params: { method: 'GET', path: '/status' } } }]));
  expect(unknown.status).toBe('failed');
  expect(unknown.step_results[0].error).toMatch(/^404 /);
  const bad = await call('POST', '/v1/automations', {
    token: owner.token, body: { name: rnd('bad'), agent_id: agent.id, trigger_type: 'manual', workflow_spec: { steps: [{ type: 'execute_intent', params: { binding: 'team-chat' } }] } },
  });
  expect(bad.status).toBe(400);
  expect(JSON.stringify(bad.body)).toContain('params');
  expect(chat.received()).toEqual([]);
});

describe('a secret templated into the request path (issue 25: it was stored in the execution event and the audit record)', () => {
  // A value with characters each spelling writes differently: `:` and `@` stay in a path, `ü` is encoded.
  const ACCOUNT = `tenant:${rnd('acct')}@zürich`;
  const spellings = [ACCOUNT, encodeURIComponent(ACCOUNT), encodeURIComponent(ACCOUNT).replace(/%3A/g, ':').replace(/%40/g, '@')];

  beforeAll(async () => {
    await putOk(owner, vaultId, 'integrations/account', ACCOUNT);
    const b = await call('POST', `/v1/agents/${agent.id}/bindings`, {
      token: owner.token,
      body: {
        name: 'accounts', binding_type: 'http', config: { base_url: chat.url, allowed_methods: ['GET'], allowed_paths: ['/accounts/*'] },
        credential_source: { type: 'vault_ref', vault_id: vaultId, path: 'integrations/chat' },
      },
    });
    expect(b.status).toBe(201);
  });

  /** Nothing the execution recorded, nor the run, holds the value in any spelling. */
  async function expectNowhere(done: any): Promise<any[]> {
    const executions = await call('GET', `/v1/agents/${agent.id}/executions?limit=100`, { token: owner.token });
    expect(executions.status).toBe(200);
    const rows = (await db().query(
      "SELECT request_summary::text AS summary, error_message FROM execution_events WHERE agent_id = $1", [agent.id])).rows;
    const audit = (await db().query(
      "SELECT details::text AS details FROM audit_events WHERE org_id = $1 AND action = 'binding.execute'", [owner.orgId])).rows;
    for (const [where, text] of [['executions list', executions.text], ['execution rows', JSON.stringify(rows)],
      ['audit records', JSON.stringify(audit)], ['run record', JSON.stringify(done)]] as const) {
      for (const s of spellings) expect({ where, spelling: s, leaked: text.includes(s) }).toEqual({ where, spelling: s, leaked: false });
    }
    return executions.body.events;
  }

  test('a request that is sent: the path reaches the API, and every record masks it', async () => {
    const done = await ended(await run([
      { type: 'get_secret', name: 'acct', vault_id: vaultId, path: 'integrations/account' },
      { type: 'execute_intent', params: { binding: 'accounts', params: { method: 'GET', path: '/accounts/{{steps.acct.value}}' } } },
    ]));
    expect({ status: done.status, error: done.error }).toEqual({ status: 'success', error: undefined });
    expect(decodeURIComponent(chat.received()[0]!.path)).toBe(`/accounts/${ACCOUNT}`);
    const executions = await expectNowhere(done);
    expect(executions[0]).toMatchObject({ status: 'success', request_summary: expect.objectContaining({ path: '/accounts/[REDACTED]' }) });
  });

  test('a request the guardrails refuse: the refusal names the path masked', async () => {
    const done = await ended(await run([
      { type: 'get_secret', name: 'acct', vault_id: vaultId, path: 'integrations/account' },
      { type: 'execute_intent', params: { binding: 'accounts', params: { method: 'GET', path: '/admin/{{steps.acct.value}}' } } },
    ]));
    expect(done.status).toBe('failed');
    expect(done.step_results[1].error).toContain('/admin/[REDACTED]');
    expect(chat.received()).toEqual([]);
    await expectNowhere(done);
  });
});
