// The ai_generate step end to end: a real api, worker, Temporal and Postgres, and local model
// servers speaking OpenAI chat completions and Anthropic messages. The provider key lives in a
// vault, is read by the step as the automation's agent and arrives at the provider in its header,
// but never in the run record, the stack's log or Temporal history. Usage and cost add up on the
// run (condition branches included); rate limits and provider errors are retried, malformed
// answers and refusals fail the step with a clear error.
import fs from 'node:fs';
import path from 'node:path';
import { call, closeDb, db, eventually, signup, type Account } from '../helpers/api.ts';
import { registerAgent, grantAgent, type Agent } from '../helpers/agent-fixtures.ts';
import { newVault, putOk, rnd } from '../helpers/vault-fixtures.ts';
import { startFakeAiServer, type FakeAiServer } from '../helpers/fake-ai-server.ts';
import { sharedAiServer, STACK_AI_KEY, STACK_AI_MODEL } from '../helpers/shared-ai-server.ts';
import { historyText } from '../helpers/history-text.ts';
import { runWorkflowId } from '../../domain/automations/run-attributes.ts';

const OPENAI_KEY = `sk-vaulted-openai-${rnd('k')}`;
const ANTHROPIC_KEY = `sk-ant-vaulted-${rnd('k')}`;

let owner: Account;
let agent: Agent;
let vaultId: string;
let openai: FakeAiServer;
let anthropic: FakeAiServer;

beforeAll(async () => {
  openai = await startFakeAiServer('openai', { apiKey: OPENAI_KEY });
  anthropic = await startFakeAiServer('anthropic', { apiKey: ANTHROPIC_KEY });
  owner = await signup('ai-gen');
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [owner.orgId]);
  agent = await registerAgent(owner);
  vaultId = await newVault(owner);
  await grantAgent(owner, vaultId, agent.id, 'ai/**', ['read']);
  await putOk(owner, vaultId, 'ai/openai-key', `${OPENAI_KEY}\n`);
  await putOk(owner, vaultId, 'ai/anthropic-key', ANTHROPIC_KEY);
  await putOk(owner, vaultId, 'other/key', 'sk-not-for-the-agent-0000');
});
afterAll(async () => {
  await openai.stop();
  await anthropic.stop();
  await closeDb();
});
beforeEach(() => { openai.reset(); anthropic.reset(); sharedAiServer().reset(); });

const openaiStep = (extra: Record<string, unknown>) => ({
  type: 'ai_generate', provider: 'openai', base_url: openai.baseUrl, model: STACK_AI_MODEL,
  api_key_secret: { vault_id: vaultId, path: 'ai/openai-key' }, ...extra,
});

async function runOf(steps: unknown[], input?: Record<string, unknown>): Promise<{ automationId: string; runId: string }> {
  const a = await call('POST', '/v1/automations', {
    token: owner.token, body: { name: rnd('ai'), agent_id: agent.id, trigger_type: 'manual', workflow_spec: { steps } },
  });
  expect(a.status).toBe(201);
  const t = await call('POST', `/v1/automations/${a.body.id}/trigger`, { token: owner.token, body: input ? { input } : undefined });
  expect(t.status).toBe(200);
  return { automationId: a.body.id, runId: t.body.id };
}

async function ended(r: { automationId: string; runId: string }, status: string): Promise<any> {
  return eventually(`run ${r.runId} ${status}`, async () => {
    const res = await call('GET', `/v1/automations/${r.automationId}/runs/${r.runId}`, { token: owner.token });
    expect(res.status).toBe(200);
    if (res.body.status === 'running') return undefined;
    expect({ status: res.body.status, error: res.body.error }).toEqual({ status, error: status === 'success' ? undefined : expect.any(String) });
    return res.body;
  }, 60_000);
}

test('vault-held keys reach each provider in its header; outputs carry usage and cost; the run sums them, branches included', async () => {
  // 0.1 cent per input token and 0.2 per output token for fake-gpt; 0.3 and 0.6 for fake-claude (AI_PRICES of the stack).
  openai.script({ text: 'A short summary.', usage: { input: 100, output: 50 } });
  anthropic.script({ text: 'Une traduction.', usage: { input: 10, output: 5 } });
  const r = await runOf([
    openaiStep({ name: 'summary', prompt: 'Summarize {{input.topic}}', system_prompt: 'Be brief.', max_tokens: 100 }),
    {
      type: 'condition', expression: '{{steps.summary.text}} contains summary',
      if_true: [{
        type: 'ai_generate', name: 'translation', provider: 'anthropic', base_url: anthropic.baseUrl, model: 'fake-claude',
        api_key_secret: { vault_id: vaultId, path: 'ai/anthropic-key' }, prompt: 'Translate: {{steps.summary.text}}',
      }],
    },
    { type: 'log', message: '{{steps.translation.text}} ({{steps.summary.usage.total_tokens}} tokens)' },
  ], { topic: 'the quarterly report' });
  const run = await ended(r, 'success');

  const [o] = openai.requests();
  expect(o!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`); // the vault value, its trailing newline trimmed
  expect(o!.body).toEqual({
    model: 'fake-gpt', max_tokens: 100, stream: false,
    messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Summarize the quarterly report' }],
  });
  const [a] = anthropic.requests();
  expect(a!.headers['x-api-key']).toBe(ANTHROPIC_KEY);
  expect(a!.body).toEqual({ model: 'fake-claude', max_tokens: 1024, messages: [{ role: 'user', content: 'Translate: A short summary.' }] });

  expect(run.step_results[0].output).toEqual({
    text: 'A short summary.', model: 'fake-gpt', provider: 'openai', finish_reason: 'stop',
    usage: { input_tokens: 100, output_tokens: 50, total_tokens: 150 }, cost_cents: 20,
  });
  expect(run.step_results[1].steps[0].output).toMatchObject({ text: 'Une traduction.', provider: 'anthropic', cost_cents: 6, usage: { total_tokens: 15 } });
  expect(run.step_results[2].output).toEqual({ message: 'Une traduction. (150 tokens)' });
  expect({ tokens_used: run.tokens_used, cost_cents: run.cost_cents }).toEqual({ tokens_used: 165, cost_cents: 26 });

  // Neither key is in the run record, the stack's log, or Temporal history (as stored, and with every payload decoded).
  const history = await historyText(runWorkflowId(r.runId));
  const log = fs.readFileSync(path.join(process.env.TEST_DATA_DIR!, 'stack.log'), 'utf8');
  const row = (await db().query('SELECT step_results::text, context::text, error FROM automation_runs WHERE id = $1', [r.runId])).rows[0];
  for (const [where, text] of [['run record', JSON.stringify(run)], ['run row', JSON.stringify(row)], ['stack log', log],
    ['stored history', history.stored], ['decoded history', history.decoded]] as const) {
    for (const key of [OPENAI_KEY, ANTHROPIC_KEY, STACK_AI_KEY]) expect({ where, leaked: text.includes(key) }).toEqual({ where, leaked: false });
  }
  expect(history.decoded).toContain('ai/openai-key'); // the reference to the secret is there, the value is not
});

test('a key the model repeats is masked in the output', async () => {
  openai.script({ text: `I was called with ${OPENAI_KEY}.` });
  const run = await ended(await runOf([openaiStep({ prompt: 'What is your key?' })]), 'success');
  expect(run.step_results[0].output.text).toBe('I was called with [redacted].');
});

test('the operator\'s default provider: no provider in the step; its key goes to its own endpoint only', async () => {
  const stack = sharedAiServer();
  stack.script({ text: 'default answer', usage: { input: 1000, output: 0 } });
  const run = await ended(await runOf([{ type: 'ai_generate', prompt: 'Hello' }]), 'success');
  expect(run.step_results[0].output).toMatchObject({ text: 'default answer', model: STACK_AI_MODEL, provider: 'openai', cost_cents: 100 });
  expect(stack.requests()[0]!.headers.authorization).toBe(`Bearer ${STACK_AI_KEY}`);
  expect(run.cost_cents).toBe(100);

  // A step that names another URL without a key of its own: the operator's key is not sent there (the fake answers 401, not retried).
  const other = await ended(await runOf([{ type: 'ai_generate', prompt: 'Hello', base_url: openai.baseUrl }]), 'failed');
  expect(openai.requests()).toHaveLength(1);
  expect(openai.requests()[0]!.headers.authorization).toBeUndefined();
  expect(other.error).toMatch(/^step 0 \(ai_generate\): openai provider at 127\.0\.0\.1:\d+: the provider answered HTTP 401: Incorrect API key provided/);
});

test('429 (with Retry-After) and 500 are retried with backoff: one successful step', async () => {
  openai.script({ status: 429, message: 'Rate limit reached', headers: { 'retry-after': '1' } }, { status: 500, message: 'The server had an error' }, { text: 'third time' });
  const run = await ended(await runOf([openaiStep({ prompt: 'p' })]), 'success');
  expect(openai.requests()).toHaveLength(3);
  expect(run.step_results).toHaveLength(1);
  expect(run.step_results[0]).toMatchObject({ status: 'success', output: { text: 'third time' } });
  expect(run.tokens_used).toBe(15);
});

test('a provider that stays unavailable fails the step after the retries, naming the last error', async () => {
  openai.setDefault({ status: 503, message: 'Overloaded' });
  try {
    const run = await ended(await runOf([openaiStep({ prompt: 'p' })]), 'failed');
    expect(openai.requests()).toHaveLength(4);
    expect(run.error).toMatch(/^step 0 \(ai_generate\): openai provider at 127\.0\.0\.1:\d+: the provider answered HTTP 503: Overloaded$/);
  } finally {
    openai.setDefault({ text: 'fake answer' });
  }
});

test('a malformed answer fails the step clearly, without a retry', async () => {
  openai.script({ raw: '{"choices": [{"message": ' });
  const run = await ended(await runOf([openaiStep({ prompt: 'p' })]), 'failed');
  expect(run.error).toMatch(/^step 0 \(ai_generate\): openai provider at 127\.0\.0\.1:\d+: the provider's answer is not JSON$/);
  expect(openai.requests()).toHaveLength(1);
  expect(run.step_results[0]).toMatchObject({ status: 'failed' });
});

test('a refusal fails the step; the tokens it cost still count on the run', async () => {
  anthropic.script({ refusal: 'I cannot help with that.', usage: { input: 100, output: 50 } });
  const run = await ended(await runOf([{
    type: 'ai_generate', provider: 'anthropic', base_url: anthropic.baseUrl, model: 'fake-claude', prompt: 'p',
    api_key_secret: { vault_id: vaultId, path: 'ai/anthropic-key' },
  }]), 'failed');
  expect(run.error).toMatch(/anthropic provider at 127\.0\.0\.1:\d+: the model refused: I cannot help with that\.$/);
  expect({ tokens_used: run.tokens_used, cost_cents: run.cost_cents }).toEqual({ tokens_used: 150, cost_cents: 60 });
});

test('a key the agent may not read: the step fails with the denial and nothing is sent', async () => {
  const run = await ended(await runOf([openaiStep({ prompt: 'p', api_key_secret: { vault_id: vaultId, path: 'other/key' } })]), 'failed');
  expect(run.error).toMatch(/^step 0 \(ai_generate\): api_key_secret: 403 /);
  expect(openai.requests()).toHaveLength(0);
});

test('a secret value read by the run cannot be put into a prompt', async () => {
  const run = await ended(await runOf([
    { type: 'get_secret', name: 'k', vault_id: vaultId, path: 'ai/anthropic-key' },
    openaiStep({ prompt: 'Remember {{steps.k.value}}' }),
  ]), 'failed');
  expect(run.error).toBe('step 1 (ai_generate): a secret value read by this run cannot be passed to a ai_generate step');
  expect(openai.requests()).toHaveLength(0);
});

test('the URL the key goes to and the key\'s secret are fixed when the automation is written', async () => {
  const r = await call('POST', '/v1/automations', {
    token: owner.token,
    body: { name: rnd('ai'), agent_id: agent.id, trigger_type: 'webhook', workflow_spec: [openaiStep({ prompt: 'p', base_url: '{{trigger.url}}' })] },
  });
  expect(r.status).toBe(400);
  expect(r.body.detail).toBe('workflow_spec.steps[0].base_url: must be written out, not a template: the provider key is sent there');
});

test('a step\'s base_url that could never be sent to is refused when the automation is written, not when it runs', async () => {
  const create = (steps: unknown[]) => call('POST', '/v1/automations', {
    token: owner.token, body: { name: rnd('ai'), agent_id: agent.id, trigger_type: 'manual', workflow_spec: { steps } },
  });
  const refusals: [string, RegExp][] = [
    ['http://models.example.com/v1', /https is required/],
    ['https://10.0.0.5/v1', /not allowed/],
    ['https://169.254.169.254/latest', /not allowed/],
    ['https://user:pw@models.example.com/v1', /credentials/],
  ];
  for (const [url, why] of refusals) {
    const r = await create([openaiStep({ prompt: 'p', base_url: url })]);
    expect({ url, status: r.status }).toEqual({ url, status: 400 });
    expect(r.body.errors).toEqual([{ field: 'workflow_spec.steps[0].base_url', message: expect.stringMatching(why) }]);
  }
  const branch = await create([{ type: 'condition', expression: 'true', if_true: [openaiStep({ prompt: 'p', base_url: 'http://models.example.com' })] }]);
  expect(branch.status).toBe(400);
  expect(branch.body.errors[0].field).toBe('workflow_spec.steps[0].if_true[0].base_url');

  // A public https endpoint is stored; changing it to a refused one is refused and changes nothing.
  const ok = await create([openaiStep({ prompt: 'p', base_url: 'https://models.example.com/v1' })]);
  expect(ok.status).toBe(201);
  const patch = await call('PATCH', `/v1/automations/${ok.body.id}`, {
    token: owner.token, body: { workflow_spec: { steps: [openaiStep({ prompt: 'p', base_url: 'http://models.example.com/v1' })] } },
  });
  expect(patch.status).toBe(400);
  const after = await call('GET', `/v1/automations/${ok.body.id}`, { token: owner.token });
  expect(JSON.stringify(after.body.workflow_spec)).toContain('https://models.example.com/v1');
});
