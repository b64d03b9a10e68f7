// Workflow specs (domain/automations/spec/workflow-spec.ts, step-params.ts): every spelling of
// a step type, both spec forms, and the 400s that name the step and the field.
import { parseWorkflowSpec, stepsOf } from '../../domain/automations/spec/workflow-spec.ts';
import { checkStepParams, StepParamError } from '../../domain/automations/spec/step-params.ts';
import { Problem } from '../../domain/errors.ts';

const VAULT = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

/** The Problem a spec is refused with. */
function refusal(raw: unknown): { detail: string; field: string; message: string } {
  try {
    parseWorkflowSpec(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(Problem);
    const p = e as Problem;
    expect(p.status).toBe(400);
    const errors = p.extras.errors as { field: string; message: string }[];
    expect(errors).toHaveLength(1);
    expect(p.detail).toBe(`${errors[0]!.field}: ${errors[0]!.message}`);
    return { detail: p.detail, ...errors[0]! };
  }
  throw new Error('expected a 400');
}

const one = (step: unknown) => parseWorkflowSpec([step])[0]!;

describe('step types and aliases', () => {
  test.each([
    ['log', { message: 'hi' }, 'log'],
    ['run_agent_task', { params: { prompt: 'summarize' } }, 'log'],
    ['http', { url: 'https://example.com' }, 'http'],
    ['execute_http', { url: 'https://example.com' }, 'http'],
    ['http_request', { url: 'https://example.com' }, 'http'],
    ['webhook_alert', { url: 'https://example.com' }, 'http'],
    ['webhook_deliver', { url: 'https://example.com' }, 'http'],
    ['wait', { duration_secs: 1 }, 'wait'],
    ['notify', { channel: 'slack', url: 'https://hooks.example.com/x', message: 'm' }, 'notify'],
    ['notify_human', { channel: 'email', to: 'a@example.com', text: 'm' }, 'notify'],
    ['rotate_generate', { vault_id: VAULT, path: 'k' }, 'rotate_generate'],
    ['rotate_secret', { vault_id: VAULT, path: 'k' }, 'rotate_generate'],
    ['get_secret', { vault_id: VAULT, path: 'k' }, 'get_secret'],
    ['put_secret', { vault_id: VAULT, path: 'k', value: 'v' }, 'put_secret'],
    ['memory_get', { key: 'k' }, 'memory_get'],
    ['memory_put', { key: 'k', value: { a: 1 } }, 'memory_put'],
    ['memory_search', { query: 'q' }, 'memory_search'],
    ['approval_request', { summary: 'pay 5 USD' }, 'approval_request'],
    ['condition', { expression: 'a == a', if_true: [{ type: 'log', message: 'x' }] }, 'condition'],
    ['submit_transaction', { chain: 'base', to: `0x${'ab'.repeat(20)}`, value: '0.1' }, 'submit_transaction'],
    ['sign_intent', { chain: 'base', to: `0x${'ab'.repeat(20)}`, value: '0x10', sign_only: true }, 'submit_transaction'],
    ['swap', { chain: 'base', token_in: 'ETH', token_out: `0x${'cd'.repeat(20)}`, sell_amount: '0.5' }, 'swap'],
  ])('%s → %s', (spelled, fields, canonical) => {
    expect(one({ type: spelled, ...fields }).type).toBe(canonical);
    expect(one({ action: spelled, ...fields }).type).toBe(canonical);
  });

  test.each([['execute_binding'], ['execute_intent']])('%s → execute_intent: binding and params required, intent_type defaults, templates allowed', (spelled) => {
    expect(one({ type: spelled, params: { binding: 'crm', params: { method: 'POST', path: '/x', body: { text: '{{steps.0.text}}' } } } }))
      .toMatchObject({ type: 'execute_intent', params: { binding: 'crm', intent_type: 'http_request', params: { method: 'POST', path: '/x', body: { text: '{{steps.0.text}}' } } } });
    expect(one({ action: spelled, params: { binding_id: 'crm', params: {} } }).params).toMatchObject({ binding: 'crm' });
    expect(refusal([{ action: spelled, params: {} }]).field).toBe('workflow_spec.steps[0].binding');
    expect(refusal([{ action: spelled, params: { binding: 'crm' } }]).field).toBe('workflow_spec.steps[0].params');
    expect(refusal([{ action: spelled, params: { binding: 'crm', params: 'GET /x' } }]).field).toBe('workflow_spec.steps[0].params');
  });

  test('submit_transaction and swap: their parameters are checked, templates allowed', () => {
    const to = `0x${'ab'.repeat(20)}`;
    expect(refusal([{ type: 'submit_transaction', chain: 'base', value: '1' }]).field).toBe('workflow_spec.steps[0].to');
    expect(refusal([{ type: 'submit_transaction', chain: 'base', to: '0x12', value: '1' }]).field).toBe('workflow_spec.steps[0].to');
    expect(refusal([{ type: 'submit_transaction', chain: 'base', to, value: '-1' }]).field).toBe('workflow_spec.steps[0].value');
    expect(refusal([{ type: 'sign_intent', chain: 'base', to, value: '1', token_mint: 'So1111' }]).field).toBe('workflow_spec.steps[0].token_mint');
    expect(one({ type: 'submit_transaction', chain: 'base', to: '{{input.to}}', value: '{{steps.0.amount}}' }).params)
      .toEqual({ chain: 'base', to: '{{input.to}}', value: '{{steps.0.amount}}', sign_only: false, dry_run: false, simulate_first: false });
    expect(refusal([{ type: 'swap', chain: 'base', token_in: 'ETH', token_out: to }]).field).toBe('workflow_spec.steps[0].sell_amount');
    expect(refusal([{ type: 'swap', chain: 'base', token_in: 'ETH', token_out: to, sell_amount: '1', amount_usd: '5' }]).field).toBe('workflow_spec.steps[0].sell_amount');
    expect(refusal([{ type: 'swap', chain: 'base', token_in: 'ETH', token_out: to, sell_amount: '1', slippage_bps: 10001 }]).field).toBe('workflow_spec.steps[0].slippage_bps');
  });

  test('ai_generate: its parameters are checked; provider names fold to a protocol', () => {
    expect(refusal([{ type: 'ai_generate', prompt: 'p', max_tokens: 16385 }]).field).toBe('workflow_spec.steps[0].max_tokens');
    expect(refusal([{ type: 'ai_generate', prompt: 'p', max_tokens: 20000 }]).message).toBe('must be at most 16384');
    expect(refusal([{ type: 'ai_generate' }]).field).toBe('workflow_spec.steps[0].prompt');
    expect(one({ type: 'ai_generate', prompt: 'Summarize {{steps.0.body}}', max_tokens: 16384 }).params)
      .toEqual({ prompt: 'Summarize {{steps.0.body}}', max_tokens: 16384 });
    const key = { vault_id: VAULT, path: 'ai/openai-key' };
    expect(one({ type: 'ai_generate', prompt: 'p', provider: 'Ollama', base_url: 'http://127.0.0.1:11434/v1', api_key_secret: key }).params)
      .toEqual({ prompt: 'p', provider: 'openai', base_url: 'http://127.0.0.1:11434/v1', api_key_secret: key });
    expect(one({ type: 'ai_generate', prompt: 'p', provider: 'anthropic' }).params.provider).toBe('anthropic');
    expect(refusal([{ type: 'ai_generate', prompt: 'p', provider: 'tee' }]).message).toMatch(/^must be one of: openai, anthropic, /);
    expect(refusal([{ type: 'ai_generate', prompt: 'p', base_url: 'ftp://x' }]).field).toBe('workflow_spec.steps[0].base_url');
    expect(refusal([{ type: 'ai_generate', prompt: 'p', api_key_secret: { vault_id: 'nope', path: 'k' } }]).field)
      .toBe('workflow_spec.steps[0].api_key_secret.vault_id');
    expect(refusal([{ type: 'ai_generate', prompt: 'p', api_key_secret: 'ai/key' }]).field).toBe('workflow_spec.steps[0].api_key_secret');
  });

  test('ai_generate: the key\'s secret and the URL it is sent to cannot come from a template', () => {
    const r = refusal([{ type: 'ai_generate', prompt: 'p', base_url: '{{trigger.url}}' }]);
    expect(r.field).toBe('workflow_spec.steps[0].base_url');
    expect(r.message).toMatch(/not a template/);
    expect(refusal([{ type: 'ai_generate', prompt: 'p', api_key_secret: '{{trigger.key}}' }]).field).toBe('workflow_spec.steps[0].api_key_secret');
    expect(refusal([{ type: 'ai_generate', prompt: 'p', api_key_secret: { vault_id: VAULT, path: '{{trigger.path}}' } }]).field)
      .toBe('workflow_spec.steps[0].api_key_secret.path');
  });

  test('an unknown type lists the known ones', () => {
    const r = refusal([{ type: 'log', message: 'x' }, { type: 'teleport' }]);
    expect(r.field).toBe('workflow_spec.steps[1].type');
    expect(r.message).toMatch(/unknown step type "teleport"; known types: log, http, wait, notify/);
    expect(refusal([{ type: 'constructor' }]).message).toMatch(/unknown step type/);
    expect(refusal([{ type: '__proto__' }]).message).toMatch(/unknown step type/);
  });

  test('a missing or non-string type', () => {
    expect(refusal([{ message: 'x' }]).field).toBe('workflow_spec.steps[0].type');
    expect(refusal([{ type: 5 }]).field).toBe('workflow_spec.steps[0].type');
    expect(refusal([{ action: ['log'] }]).field).toBe('workflow_spec.steps[0].action');
  });
});

describe('spec forms', () => {
  const steps = [{ type: 'log', message: 'a' }, { action: 'wait', params: { duration_secs: 2 } }];

  test('a bare array and {steps} give the same steps', () => {
    expect(parseWorkflowSpec(steps)).toEqual(parseWorkflowSpec({ steps }));
    expect(parseWorkflowSpec(steps)).toEqual([
      { type: 'log', params: { message: 'a' } },
      { type: 'wait', params: { duration_secs: 2 } },
    ]);
    expect(stepsOf({ steps })).toEqual(parseWorkflowSpec(steps));
  });

  test.each([null, 'steps', 5, {}, { step: [] }])('%p is refused on workflow_spec', (raw) => {
    expect(refusal(raw).field).toBe('workflow_spec');
  });

  test('steps must be a non-empty array of at most 50 objects', () => {
    expect(refusal({ steps: 'x' }).field).toBe('workflow_spec.steps');
    expect(refusal([]).message).toBe('must contain at least 1 step');
    expect(refusal(Array.from({ length: 51 }, () => ({ type: 'log', message: 'x' }))).message).toBe('must contain at most 50 steps');
    expect(parseWorkflowSpec(Array.from({ length: 50 }, () => ({ type: 'log', message: 'x' })))).toHaveLength(50);
    expect(refusal([{ type: 'log', message: 'x' }, 'log']).field).toBe('workflow_spec.steps[1]');
  });

  test('params win over top-level fields; reserved keys are not params', () => {
    const s = one({ type: 'http', id: 'x', description: 'd', url: 'https://a.example', params: { url: 'https://b.example' } });
    expect(s.params).toEqual({ url: 'https://b.example', method: 'GET', timeout_secs: 10 });
    expect(refusal([{ type: 'log', message: 'x', params: 'nope' }]).field).toBe('workflow_spec.steps[0].params');
  });

  test('defaults are applied', () => {
    expect(one({ type: 'rotate_generate', vault_id: VAULT, path: 'p' }).params).toEqual({ vault_id: VAULT, path: 'p', length: 32, charset: 'alphanumeric' });
    expect(one({ type: 'memory_search', query: 'q' }).params).toEqual({ namespace: 'default', query: 'q', top_k: 10 });
    expect(one({ type: 'memory_put', key: 'k', value: 1 }).params).toEqual({ namespace: 'default', key: 'k', value: 1, tier: 'durable' });
    expect(one({ type: 'approval_request', summary: { a: 1 } }).params).toEqual({ action: 'automation_step', summary: { a: 1 }, risk_tier: 1, expires_in_secs: 86400 });
    expect(one({ type: 'http', url: 'https://x.example', method: 'post' }).params.method).toBe('POST');
  });

  test('notify aliases fold into url and message', () => {
    expect(one({ type: 'notify', channel: 'Discord', webhook_url: 'https://d.example/h', text: 'hi' }).params)
      .toEqual({ channel: 'discord', url: 'https://d.example/h', message: 'hi' });
  });
});

describe('400s name the step and the field', () => {
  const at = (i: number, step: unknown) => {
    const list: unknown[] = Array.from({ length: i }, () => ({ type: 'log', message: 'x' }));
    list.push(step);
    return refusal(list);
  };

  test('wait over 30 s', () => {
    const r = at(2, { type: 'wait', duration_secs: 31 });
    expect(r.detail).toBe('workflow_spec.steps[2].duration_secs: must be at most 30');
    expect(at(0, { type: 'wait', duration_secs: 0 }).message).toBe('must be greater than 0');
    expect(at(0, { type: 'wait' }).detail).toBe('workflow_spec.steps[0].duration_secs: is required');
    expect(one({ type: 'wait', duration_secs: 30 }).params.duration_secs).toBe(30);
  });

  test('memory_search top_k 51', () => {
    expect(at(1, { type: 'memory_search', query: 'q', top_k: 51 }).detail).toBe('workflow_spec.steps[1].top_k: must be at most 50');
  });

  test('rotate length 7 and 1025', () => {
    expect(at(0, { type: 'rotate_generate', vault_id: VAULT, path: 'p', length: 7 }).detail).toBe('workflow_spec.steps[0].length: must be at least 8');
    expect(at(3, { type: 'rotate_generate', vault_id: VAULT, path: 'p', length: 1025 }).detail).toBe('workflow_spec.steps[3].length: must be at most 1024');
    expect(at(0, { type: 'rotate_generate', vault_id: VAULT, path: 'p', charset: 'emoji' }).field).toBe('workflow_spec.steps[0].charset');
  });

  test.each([
    [{ type: 'http' }, 'url', 'is required'],
    [{ type: 'http', url: 'ftp://x.example' }, 'url', 'must be an absolute http or https URL'],
    [{ type: 'http', url: 'https://x.example', method: 'TRACE' }, 'method', 'must be one of: GET, POST, PUT, PATCH, DELETE, HEAD'],
    [{ type: 'http', url: 'https://x.example', timeout_secs: 31 }, 'timeout_secs', 'must be at most 30'],
    [{ type: 'http', url: 'https://x.example', headers: { 'X-A': 5 } }, 'headers.X-A', 'must be a string'],
    [{ type: 'http', url: 'https://x.example', headers: { 'X-A': 'a\r\nB: c' } }, 'headers.X-A', 'must not contain line breaks or NUL'],
    [{ type: 'log' }, 'message', 'is required (message or prompt)'],
    [{ type: 'notify', url: 'https://x.example', message: 'm' }, 'channel', 'is required'],
    [{ type: 'notify', channel: 'sms', message: 'm' }, 'channel', 'must be one of: webhook, email, slack, discord'],
    [{ type: 'notify', channel: 'webhook', message: 'm' }, 'url', 'is required for the webhook channel'],
    [{ type: 'notify', channel: 'email', message: 'm' }, 'to', 'is required for the email channel'],
    [{ type: 'notify', channel: 'email', to: 'not-an-address', message: 'm' }, 'to', 'must be an e-mail address'],
    [{ type: 'notify', channel: 'slack', url: 'https://x.example' }, 'message', 'is required'],
    [{ type: 'get_secret', vault_id: 'nope', path: 'p' }, 'vault_id', 'must be a UUID'],
    [{ type: 'get_secret', vault_id: VAULT }, 'path', 'is required'],
    [{ type: 'get_secret', vault_id: VAULT, path: 'p', version: 0 }, 'version', 'must be at least 1'],
    [{ type: 'put_secret', vault_id: VAULT, path: 'p' }, 'value', 'is required'],
    [{ type: 'memory_get', namespace: 'bad ns', key: 'k' }, 'namespace', 'may only contain letters, digits and _ . : -'],
    [{ type: 'memory_put', key: 'k' }, 'value', 'is required'],
    [{ type: 'memory_put', key: 'k', value: 1, tier: 'forever' }, 'tier', 'must be one of: scratch, durable, semantic'],
    [{ type: 'memory_search', query: '' }, 'query', 'must not be empty'],
    [{ type: 'approval_request' }, 'summary', 'is required'],
    [{ type: 'approval_request', summary: 's', risk_tier: 4 }, 'risk_tier', 'must be at most 3'],
    [{ type: 'approval_request', summary: 's', expires_in_secs: 59 }, 'expires_in_secs', 'must be at least 60'],
    [{ type: 'approval_request', summary: 5 }, 'summary', 'must be a string or an object'],
    [{ type: 'log', message: 'x', name: '123' }, 'name', 'must not be all digits (steps are also reached by index)'],
    [{ type: 'log', message: 'x', name: 'a.b' }, 'name', 'must not contain dots, braces or control characters'],
    [{ type: 'log', message: 'x', skip_if: 5 }, 'skip_if', 'must be a string'],
    [{ type: 'log', message: 'x', run_if: 'x'.repeat(1001) }, 'run_if', 'must be at most 1000 characters'],
  ].map(([step, field, message]) => [`${(step as { type: string }).type} ${field}`, step, field, message] as const))('%s: %#', (_title, step, field, message) => {
    const r = at(1, step);
    expect(r.field).toBe(`workflow_spec.steps[1].${field}`);
    expect(r.message).toBe(message);
  });

  test('step names are unique across the spec, branches included', () => {
    const r = refusal([
      { type: 'log', message: 'x', name: 'a' },
      { type: 'condition', expression: '1', if_true: [{ type: 'log', message: 'y', name: 'a' }] },
    ]);
    expect(r.field).toBe('workflow_spec.steps[1].if_true[0].name');
  });
});

describe('condition steps', () => {
  test('normalized with both branches', () => {
    expect(one({ type: 'condition', params: { expression: '{{steps.0.status}} == 200' }, if_false: [{ action: 'notify_human', channel: 'slack', url: 'https://s.example', message: 'down' }] }))
      .toEqual({
        type: 'condition', params: {}, expression: '{{steps.0.status}} == 200', if_true: [],
        if_false: [{ type: 'notify', params: { channel: 'slack', url: 'https://s.example', message: 'down' } }],
      });
  });

  test('needs an expression and a non-empty branch', () => {
    expect(refusal([{ type: 'condition', if_true: [{ type: 'log', message: 'x' }] }]).field).toBe('workflow_spec.steps[0].expression');
    expect(refusal([{ type: 'condition', expression: 'a', if_true: [], if_false: [] }]).field).toBe('workflow_spec.steps[0].if_true');
    expect(refusal([{ type: 'condition', expression: 'a', if_true: 'log' }]).field).toBe('workflow_spec.steps[0].if_true');
  });

  test.each(['wait', 'condition', 'get_secret', 'approval_request', 'rotate_secret'])('a %s sub-step is refused', (type) => {
    const r = refusal([{ type: 'log', message: 'x' }, { type: 'condition', expression: 'a', if_true: [{ type: 'log', message: 'x' }, { type }] }]);
    expect(r.field).toBe('workflow_spec.steps[1].if_true[1].type');
    expect(r.message).toMatch(/^a condition's steps may only be of type log, http, notify, ai_generate, memory_get, memory_put/);
  });

  test('sub-steps are validated the same way', () => {
    const r = refusal([{ type: 'log', message: 'x' }, { type: 'condition', expression: 'a', if_false: [{ type: 'http', url: 'nope' }] }]);
    expect(r.detail).toBe('workflow_spec.steps[1].if_false[0].url: must be an absolute http or https URL');
    expect(one({ type: 'condition', expression: 'a', if_true: [{ type: 'ai_generate', prompt: 'p' }] }).if_true![0]!.type).toBe('ai_generate');
  });
});

describe('templates at definition time', () => {
  test('any field may be a template', () => {
    const s = one({
      type: 'http', url: '{{trigger.url}}', method: '{{trigger.method}}', timeout_secs: '{{input.t}}',
      headers: { Authorization: 'Bearer {{steps.0.value}}' },
    });
    expect(s.params).toEqual({ url: '{{trigger.url}}', method: '{{trigger.method}}', timeout_secs: '{{input.t}}', headers: { Authorization: 'Bearer {{steps.0.value}}' } });
    expect(one({ type: 'wait', duration_secs: '{{ trigger.delay }}' }).params.duration_secs).toBe('{{ trigger.delay }}');
    expect(one({ type: 'rotate_generate', vault_id: '{{input.vault}}', path: 'p', length: '{{input.len}}' }).params.length).toBe('{{input.len}}');
    expect(one({ type: 'notify', channel: '{{trigger.channel}}', message: 'm' }).params.channel).toBe('{{trigger.channel}}');
    expect(one({ type: 'notify', channel: 'email', to: '{{trigger.email}}', message: 'm' }).params.to).toBe('{{trigger.email}}');
  });

  test('a non-template string still has to fit', () => {
    expect(refusal([{ type: 'wait', duration_secs: '5' }]).message).toBe('must be a number');
  });
});

describe('checkStepParams in run mode', () => {
  test('coerces numeric and text values produced by templates', () => {
    expect(checkStepParams('wait', { duration_secs: ' 2.5 ' }, 'run')).toEqual({ duration_secs: 2.5 });
    expect(checkStepParams('memory_search', { query: 'q', top_k: '7' }, 'run')).toMatchObject({ top_k: 7 });
    expect(checkStepParams('put_secret', { vault_id: VAULT, path: 'p', value: { a: 1 } }, 'run')).toMatchObject({ value: '{"a":1}' });
    expect(checkStepParams('memory_get', { key: 42 }, 'run')).toMatchObject({ key: '42' });
  });

  test('templates are no longer accepted', () => {
    expect(() => checkStepParams('wait', { duration_secs: '{{x}}' }, 'run')).toThrow(StepParamError);
    try {
      checkStepParams('memory_search', { query: 'q', top_k: '51' }, 'run');
      throw new Error('expected a refusal');
    } catch (e) {
      expect(e).toBeInstanceOf(StepParamError);
      expect((e as StepParamError).field).toBe('top_k');
      expect((e as StepParamError).message).toBe('must be at most 50');
    }
  });
});
