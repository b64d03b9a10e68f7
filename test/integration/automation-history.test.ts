// Nothing readable in Temporal history when runs fail (issue 29 §2). For every step type the
// engine runs, a run reads a vault secret (the marker) and then fails in a step of that type with
// the marker in play: templated into its parameters, echoed by a receiver, used as a provider key,
// typed into a rejection. Then, for each run: the history as the Temporal server stores it (what
// an operator browsing the UI without the codec sees: payloads, failure messages and stack
// traces, memo, search attributes) holds the marker in no spelling; every failure in it is
// encoded; its failures, decoded with the codec, still say what went wrong but without the
// marker (steps redact before they throw); and the run's error shown by the API is useful and
// redacted.
import { randomBytes } from 'node:crypto';
import { call, closeDb, db, eventually, signup, type Account } from '../helpers/api.ts';
import { registerAgent, grantAgent, type Agent } from '../helpers/agent-fixtures.ts';
import { newVault, putOk, rnd } from '../helpers/vault-fixtures.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { startFakeAiServer, type FakeAiServer } from '../helpers/fake-ai-server.ts';
import { startFakeBindingApi, type FakeBindingApi } from '../helpers/fake-binding-api.ts';
import { historyText, type HistoryText } from '../helpers/history-text.ts';
import { STACK_AI_MODEL } from '../helpers/shared-ai-server.ts';
import { runWorkflowId } from '../../domain/automations/run-attributes.ts';
import { STEP_TYPES, type StepType } from '../../domain/automations/spec/step-types.ts';
import { credentialForms } from '../../domain/bindings/redaction.ts';

// Lower-case letters, digits and a hyphen: it is also a valid host name label (the http cases put it in a URL's host).
const MARKER = `mk-${randomBytes(12).toString('hex')}`;
/** Every spelling the marker could take in stored text: raw, JSON-escaped, percent-encoded, base64 (payload bytes are base64 in JSON). */
const SPELLINGS = credentialForms(MARKER);
const READ = { type: 'get_secret', name: 's', vault_id: '<vault>', path: 'app/marker' };
const SECRET = '{{steps.s.value}}';
const DISCLOSED = (i: number, type: string) => `step ${i} (${type}): a secret value read by this run cannot be passed to a ${type} step`;

let receiver: Receiver;
let ai: FakeAiServer;
let api: FakeBindingApi;
let owner: Account;
let agent: Agent;
let vaultId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  // A provider that quotes the key it was given in its error, as some do.
  ai = await startFakeAiServer('openai', { defaultReply: (req) => ({ status: 400, message: `this key is not valid here: ${String(req.headers.authorization)}` }) });
  api = await startFakeBindingApi();
  owner = await signup('history');
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [owner.orgId]);
  agent = await registerAgent(owner, { execution_intents_enabled: true });
  vaultId = await newVault(owner);
  await grantAgent(owner, vaultId, agent.id, 'app/**', ['read', 'write']);
  await putOk(owner, vaultId, 'app/marker', MARKER);
  await putOk(owner, vaultId, 'app/binding-token', rnd('binding-token'));
  const b = await call('POST', `/v1/agents/${agent.id}/bindings`, {
    token: owner.token,
    body: {
      name: 'status-api', binding_type: 'http', config: { base_url: api.url, allowed_methods: ['GET'], allowed_paths: ['/status'] },
      credential_source: { type: 'vault_ref', vault_id: vaultId, path: 'app/binding-token' },
    },
  });
  expect(b.status).toBe(201);
  // The receiver answers an error that quotes the token it was sent.
  receiver.respond('/echo', (_n, req) => ({ status: 500, body: `invalid token ${String(req.body?.token)}` }));
});
afterAll(async () => {
  await receiver.close();
  await ai.stop();
  await api.close();
  await closeDb();
});

type Case = {
  type: StepType;
  /** The steps after the marker's read (step 0). */
  steps: unknown[];
  /** The run's error as the API shows it. */
  error: string | RegExp;
  /** The failure a step's activity threw, as decoded from history (steps that fail inside the workflow throw none). */
  failure?: RegExp;
  /** What a human does while the run waits. */
  whileWaiting?: (runId: string) => Promise<void>;
};

const failingHttp = (url: string) => ({ type: 'http', url, method: 'GET' });
const NO_DOMAIN = 'request failed (refused): host name "[redacted]" has no domain';

const CASES: Case[] = [
  { type: 'log', steps: [{ type: 'log', message: SECRET.repeat(1001) }], error: 'step 1 (log): a string holds more than 1000 templates' },
  {
    type: 'http',
    steps: [{ type: 'http', method: 'POST', url: () => receiver.url('/echo'), body: { token: SECRET } }, failingHttp(`https://${SECRET}/orders`)],
    error: `step 2 (http): ${NO_DOMAIN}`, failure: /^request failed \(refused\): host name "\[redacted\]" has no domain$/,
  },
  { type: 'wait', steps: [{ type: 'wait', duration_secs: SECRET }], error: /^step 1 \(wait\): duration_secs: must be a number/ },
  { type: 'notify', steps: [{ type: 'notify', channel: 'webhook', url: () => receiver.url('/notify'), message: `token ${SECRET}` }], error: DISCLOSED(1, 'notify') },
  {
    type: 'rotate_generate', steps: [{ type: 'rotate_generate', vault_id: '<vault>', path: `other/${SECRET}` }],
    error: /^step 1 \(rotate_generate\): 403 \S/, failure: /^403 /,
  },
  {
    type: 'get_secret', steps: [{ type: 'get_secret', vault_id: '<vault>', path: `app/missing/${SECRET}` }],
    error: 'step 1 (get_secret): 404 Secret not found', failure: /^404 Secret not found$/,
  },
  {
    type: 'put_secret', steps: [{ type: 'put_secret', vault_id: '<vault>', path: 'other/copy', value: SECRET }],
    error: /^step 1 \(put_secret\): 403 \S/, failure: /^403 /,
  },
  {
    type: 'memory_get', steps: [{ type: 'memory_get', namespace: `ns ${SECRET}`, key: 'k' }],
    error: 'step 1 (memory_get): namespace: may only contain letters, digits and _ . : -', failure: /^namespace: /,
  },
  { type: 'memory_put', steps: [{ type: 'memory_put', namespace: 'notes', key: 'k', value: SECRET }], error: DISCLOSED(1, 'memory_put') },
  {
    type: 'memory_search', steps: [{ type: 'memory_search', namespace: `ns ${SECRET}`, query: 'pricing' }],
    error: 'step 1 (memory_search): namespace: may only contain letters, digits and _ . : -', failure: /^namespace: /,
  },
  {
    // The approver types the value into the rejection's reason.
    type: 'approval_request', steps: [{ type: 'approval_request', summary: 'rotate the key' }],
    error: 'step 1 (approval_request): approval rejected: the key [redacted] is wrong',
    whileWaiting: async (runId) => {
      const approval = await eventually('the approval', async () =>
        (await call('GET', '/v1/approvals?status=pending', { token: owner.token })).body.approvals.find((x: any) => x.target_id === runId));
      const d = await call('POST', `/v1/approvals/${approval.id}/decide`, { token: owner.token, body: { decision: 'reject', reason: `the key ${MARKER} is wrong` } });
      expect(d.status).toBe(200);
    },
  },
  {
    type: 'condition', steps: [{ type: 'condition', expression: `${SECRET} contains mk`, if_true: [failingHttp(`https://${SECRET}/c`)] }],
    error: `step 1 (condition): http: ${NO_DOMAIN}`, failure: /^request failed \(refused\): host name "\[redacted\]" has no domain$/,
  },
  {
    type: 'submit_transaction', steps: [{ type: 'submit_transaction', chain: 'ethereum', to: `0x${'11'.repeat(20)}`, value: '0.01', data: SECRET }],
    error: DISCLOSED(1, 'submit_transaction'),
  },
  { type: 'swap', steps: [{ type: 'swap', chain: 'ethereum', token_in: SECRET, token_out: 'USDC', sell_amount: '1' }], error: DISCLOSED(1, 'swap') },
  {
    // The marker is the provider key here (read by the step itself), and the provider quotes it.
    type: 'ai_generate',
    steps: [{ type: 'ai_generate', provider: 'openai', base_url: () => ai.baseUrl, model: STACK_AI_MODEL, prompt: 'hello', api_key_secret: { vault_id: '<vault>', path: 'app/marker' } }],
    error: /^step 1 \(ai_generate\): openai provider at 127\.0\.0\.1:\d+: the provider answered HTTP 400: this key is not valid here: Bearer \[redacted\]$/,
    failure: /HTTP 400: this key is not valid here: Bearer \[redacted\]$/,
  },
  {
    type: 'execute_intent', steps: [{ type: 'execute_intent', params: { binding: 'status-api', params: { method: 'GET', path: `/status/${SECRET}` } } }],
    error: /^step 1 \(execute_intent\): 403 .*outside the binding's allowed paths/, failure: /^403 .*outside the binding's allowed paths/,
  },
];

/** The case's steps with this test's vault and servers filled in. */
function stepsOf(c: Case): unknown[] {
  const fill = (v: unknown): unknown => {
    if (typeof v === 'function') return (v as () => string)();
    if (v === '<vault>') return vaultId;
    if (Array.isArray(v)) return v.map(fill);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill([READ, ...c.steps]) as unknown[];
}

async function runCase(c: Case): Promise<{ run: any; history: HistoryText }> {
  const a = await call('POST', '/v1/automations', {
    token: owner.token, body: { name: rnd(`history-${c.type}`), agent_id: agent.id, trigger_type: 'manual', workflow_spec: { steps: stepsOf(c) } },
  });
  expect({ status: a.status, body: a.status === 201 ? undefined : a.body }).toEqual({ status: 201, body: undefined });
  const t = await call('POST', `/v1/automations/${a.body.id}/trigger`, { token: owner.token });
  expect(t.status).toBe(200);
  const runId = t.body.id as string;
  const runUrl = `/v1/automations/${a.body.id}/runs/${runId}`;
  if (c.whileWaiting) {
    await eventually(`run ${runId} waits`, async () => ((await call('GET', runUrl, { token: owner.token })).body.status === 'awaiting_approval' ? true : undefined));
    await c.whileWaiting(runId);
  }
  const run = await eventually(`run ${runId} ends`, async () => {
    const r = await call('GET', runUrl, { token: owner.token });
    return ['running', 'awaiting_approval'].includes(r.body.status) ? undefined : r.body;
  }, 60_000);
  // The run's row is written by the workflow's last activity: the workflow closes right after.
  const history = await eventually(`workflow of run ${runId} closed`, async () => {
    const h = await historyText(runWorkflowId(runId));
    return h.status === 'RUNNING' ? undefined : h;
  });
  return { run, history };
}

const spellingsIn = (text: string) => SPELLINGS.filter((s) => text.includes(s));

test('there is a case for every step type the engine runs', () => {
  expect([...new Set(CASES.map((c) => c.type))].sort()).toEqual([...STEP_TYPES].sort());
});

test.each(CASES.map((c) => [c.type, c] as const))('a run failing in a %s step leaves nothing readable in history, and a useful redacted error', async (_type, c) => {
  const { run, history } = await runCase(c);

  // The API: the run failed, saying where and why, without the value.
  expect({ status: run.status, error: run.error }).toEqual({ status: 'failed', error: typeof c.error === 'string' ? c.error : expect.stringMatching(c.error) });
  expect(run.step_results[0]).toMatchObject({ type: 'get_secret', status: 'success', output: { value: '[redacted]' } });
  expect(spellingsIn(JSON.stringify(run))).toEqual([]);

  // The history as stored: no spelling of the marker anywhere (events, payloads as base64,
  // failures, memo and search attributes, which it holds: controls).
  expect(history.stored).toContain('"memo"');
  expect(history.stored).toContain('VaultRunStatus');
  expect(history.decoded).toContain(MARKER); // control: the step's read is in history, sealed by the codec
  expect(spellingsIn(history.stored)).toEqual([]);
  // Every failure keeps its text in the encoded attributes; none holds the marker even decoded.
  for (const f of history.failures) expect(f.stored).toEqual({ message: 'Encoded failure', stackTrace: '' });
  expect(history.failures.flatMap((f) => spellingsIn(`${f.message}\n${f.stackTrace}`))).toEqual([]);
  if (c.failure) expect(history.failures.map((f) => f.message)).toContainEqual(expect.stringMatching(c.failure));
});
