// The model providers (domain/ai): parsing both protocols' answers, classifying failures as
// retryable or not, prices, where an ai_generate step sends its prompt and with which key, and
// how a run adds up what its steps cost. The HTTP cases run against the local fake servers that
// speak the real protocols, through the real SSRF-safe client.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOutboundClient, parseExemptions } from '../../domain/net/outbound/index.ts';
import { parseChatCompletion } from '../../domain/ai/openai-provider.ts';
import { parseMessage, ANTHROPIC_VERSION } from '../../domain/ai/anthropic-provider.ts';
import { createModelProvider } from '../../domain/ai/providers.ts';
import { ModelProviderError } from '../../domain/ai/model-provider.ts';
import { retryAfterMs } from '../../domain/ai/provider-http.ts';
import { costCents, parsePriceOverrides, priceOf, priceTable } from '../../domain/ai/prices.ts';
import { resolveStepTarget, AiStepError } from '../../domain/ai/step-target.ts';
import { runCostCents, spendOfFailure, spendOfOutput } from '../../domain/ai/run-usage.ts';
import { loadConfig, ConfigError, type AiConfig } from '../../domain/config.ts';
import { startFakeAiServer, type FakeAiServer } from '../helpers/fake-ai-server.ts';

const outbound = createOutboundClient({ exemptions: parseExemptions(['127.0.0.0/8']) });
const KEY = 'sk-unit-test-key-0123456789abcdef';

/** The error a promise rejects with. */
async function failure(p: Promise<unknown>): Promise<ModelProviderError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ModelProviderError);
    return e as ModelProviderError;
  }
  throw new Error('expected a ModelProviderError');
}

describe('OpenAI chat completions: parsing', () => {
  const answer = (message: unknown, extra: Record<string, unknown> = {}) => ({
    id: 'x', object: 'chat.completion', model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 }, ...extra,
  });

  test('text, the answering model and usage', () => {
    expect(parseChatCompletion(answer({ role: 'assistant', content: 'Hello' }), 'gpt-4o-mini')).toEqual({
      text: 'Hello', model: 'gpt-4o-mini-2024-07-18', finishReason: 'stop', usage: { input_tokens: 12, output_tokens: 7, total_tokens: 19 },
    });
  });

  test('content as an array of text parts; no usage counts 0; no model falls back to the one asked for', () => {
    const r = parseChatCompletion({ choices: [{ message: { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] } }] }, 'llama3.1');
    expect(r).toEqual({ text: 'ab', model: 'llama3.1', finishReason: null, usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 } });
  });

  test('a refusal and a content filter stop are refusals, with the tokens they still cost', () => {
    const e = (() => { try { parseChatCompletion(answer({ content: null, refusal: 'I can\'t help with that.' }), 'm'); } catch (x) { return x; } })() as ModelProviderError;
    expect(e.kind).toBe('refusal');
    expect(e.retryable).toBe(false);
    expect(e.message).toBe('the model refused: I can\'t help with that.');
    expect(e.usage).toEqual({ input_tokens: 12, output_tokens: 7, total_tokens: 19 });
    const filtered = answer({ content: '' });
    (filtered.choices[0] as { finish_reason: string }).finish_reason = 'content_filter';
    expect(() => parseChatCompletion(filtered, 'm')).toThrow(/content filter/);
  });

  test('no choices, no content, or empty text: malformed, not retryable', () => {
    for (const bad of [{}, { choices: [] }, { choices: ['x'] }, answer({ role: 'assistant' }), answer({ content: 42 })]) {
      expect(() => parseChatCompletion(bad, 'm')).toThrow(ModelProviderError);
    }
    const empty = answer({ content: '' });
    (empty.choices[0] as { finish_reason: string }).finish_reason = 'length';
    expect(() => parseChatCompletion(empty, 'm')).toThrow('the model returned no text (it ran out of max_tokens)');
  });
});

describe('Anthropic messages: parsing', () => {
  const message = (content: unknown, stop = 'end_turn', usage: Record<string, number> = { input_tokens: 20, output_tokens: 4 }) =>
    ({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content, stop_reason: stop, usage });

  test('text blocks joined, stop reasons normalized, cached prompt tokens counted as input', () => {
    const r = parseMessage(message([{ type: 'text', text: 'Hel' }, { type: 'tool_use', id: 't', name: 'x', input: {} }, { type: 'text', text: 'lo' }], 'max_tokens',
      { input_tokens: 20, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, output_tokens: 4 }), 'claude');
    expect(r).toEqual({ text: 'Hello', model: 'claude-sonnet-4-5-20250929', finishReason: 'length', usage: { input_tokens: 125, output_tokens: 4, total_tokens: 129 } });
    expect(parseMessage(message([{ type: 'text', text: 'x' }]), 'c').finishReason).toBe('stop');
  });

  test('stop_reason refusal is a refusal; no text or no content is malformed', () => {
    expect(() => parseMessage(message([], 'refusal'), 'c')).toThrow(/^the model refused$/);
    expect(() => parseMessage(message([{ type: 'text', text: 'No.' }], 'refusal'), 'c')).toThrow('the model refused: No.');
    expect(() => parseMessage(message([{ type: 'tool_use', id: 't', name: 'x', input: {} }], 'tool_use'), 'c')).toThrow(/no text/);
    expect(() => parseMessage({ type: 'message' }, 'c')).toThrow(/no content/);
  });
});

describe('over HTTP, against the fake providers', () => {
  let openai: FakeAiServer;
  let anthropic: FakeAiServer;
  beforeAll(async () => {
    openai = await startFakeAiServer('openai', { apiKey: KEY });
    anthropic = await startFakeAiServer('anthropic', { apiKey: KEY });
  });
  afterAll(async () => {
    await openai.stop();
    await anthropic.stop();
  });
  beforeEach(() => { openai.reset(); anthropic.reset(); });

  const provider = (fake: FakeAiServer, apiKey: string | null = KEY) =>
    createModelProvider(fake.protocol, { outbound, baseUrl: fake.baseUrl, apiKey, allowHttp: false });

  test('OpenAI: the request carries the Bearer key, the system and user messages and max_tokens', async () => {
    openai.script({ text: 'hi there', usage: { input: 30, output: 3 } });
    const r = await provider(openai).generate({ model: 'gpt-4o-mini', system: 'Be brief.', prompt: 'Say hi', maxTokens: 50 });
    expect(r).toEqual({ text: 'hi there', model: 'gpt-4o-mini', finishReason: 'stop', usage: { input_tokens: 30, output_tokens: 3, total_tokens: 33 } });
    const [req] = openai.requests();
    expect(req!.path).toBe('/v1/chat/completions');
    expect(req!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req!.body).toEqual({
      model: 'gpt-4o-mini', max_tokens: 50, stream: false,
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hi' }],
    });
  });

  test('Anthropic: x-api-key and anthropic-version; a base given with /v1 is not doubled', async () => {
    anthropic.script({ text: 'bonjour' });
    const p = createModelProvider('anthropic', { outbound, baseUrl: `${anthropic.baseUrl}/v1`, apiKey: KEY, allowHttp: false });
    expect((await p.generate({ model: 'claude-haiku-4-5', prompt: 'hello', maxTokens: 10 })).text).toBe('bonjour');
    const [req] = anthropic.requests();
    expect(req!.path).toBe('/v1/messages');
    expect(req!.headers['x-api-key']).toBe(KEY);
    expect(req!.headers['anthropic-version']).toBe(ANTHROPIC_VERSION);
    expect(req!.headers.authorization).toBeUndefined();
    expect(req!.body).toEqual({ model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] });
  });

  test('without a key none is sent (local model servers)', async () => {
    const open = await startFakeAiServer('openai');
    try {
      await provider(open, null).generate({ model: 'llama3.1', prompt: 'x', maxTokens: 5 });
      expect(open.requests()[0]!.headers.authorization).toBeUndefined();
    } finally {
      await open.stop();
    }
  });

  test.each(['openai', 'anthropic'] as const)('%s: 429 and 5xx are retryable (with Retry-After), other 4xx are not; the key never shows', async (protocol) => {
    const fake = protocol === 'openai' ? openai : anthropic;
    fake.script({ status: 429, message: 'Rate limit reached', headers: { 'retry-after': '2' } });
    const limited = await failure(provider(fake).generate({ model: 'm', prompt: 'p', maxTokens: 5 }));
    expect({ kind: limited.kind, retryable: limited.retryable, retryAfterMs: limited.retryAfterMs, status: limited.status })
      .toEqual({ kind: 'rate_limited', retryable: true, retryAfterMs: 2000, status: 429 });
    expect(limited.message).toBe('the provider answered HTTP 429: Rate limit reached');

    fake.script({ status: 529, message: 'Overloaded' });
    expect(await failure(provider(fake).generate({ model: 'm', prompt: 'p', maxTokens: 5 }))).toMatchObject({ kind: 'unavailable', retryable: true });

    fake.script({ status: 400, message: `model not found; your key ${KEY} is fine` });
    const rejected = await failure(provider(fake).generate({ model: 'm', prompt: 'p', maxTokens: 5 }));
    expect(rejected).toMatchObject({ kind: 'rejected', retryable: false, status: 400 });
    expect(rejected.message).toBe('the provider answered HTTP 400: model not found; your key [redacted] is fine');

    const wrongKey = await failure(provider(fake, 'sk-wrong-key-000000000000').generate({ model: 'm', prompt: 'p', maxTokens: 5 }));
    expect(wrongKey).toMatchObject({ kind: 'rejected', retryable: false, status: 401 });
    expect(wrongKey.message).not.toContain('sk-wrong-key');
  });

  test.each(['openai', 'anthropic'] as const)('%s: malformed JSON and a JSON object that is no answer are malformed, not retryable', async (protocol) => {
    const fake = protocol === 'openai' ? openai : anthropic;
    fake.script({ raw: '{"choices": [' }, { raw: '{"hello": "world"}' }, { raw: '[1, 2]' });
    for (const expected of [/not JSON/, /no (choices|content)/, /not a JSON object/]) {
      const e = await failure(provider(fake).generate({ model: 'm', prompt: 'p', maxTokens: 5 }));
      expect(e).toMatchObject({ kind: 'malformed', retryable: false });
      expect(e.message).toMatch(expected);
    }
  });

  test('a refused connection is retryable; an address the policy refuses is not', async () => {
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const gone = createModelProvider('openai', { outbound, baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY, allowHttp: false });
    expect(await failure(gone.generate({ model: 'm', prompt: 'p', maxTokens: 5 }))).toMatchObject({ kind: 'network', retryable: true });
    const strict = createModelProvider('openai', { outbound: createOutboundClient(), baseUrl: openai.baseUrl, apiKey: KEY, allowHttp: false });
    const blocked = await failure(strict.generate({ model: 'm', prompt: 'p', maxTokens: 5 }));
    expect(blocked).toMatchObject({ kind: 'blocked', retryable: false });
    expect(openai.requests()).toHaveLength(0);
  });
});

test('Retry-After: seconds, an HTTP date, OpenAI\'s retry-after-ms; nothing readable is null', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  expect(retryAfterMs({ 'retry-after': '3' }, now)).toBe(3000);
  expect(retryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }, now)).toBe(10_000);
  expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
  expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeNull();
  expect(retryAfterMs({}, now)).toBeNull();
});

describe('prices', () => {
  test('dated names match their family at a boundary; a longer family wins; unknown models have no price', () => {
    const t = priceTable();
    expect(priceOf(t, 'gpt-4o-mini-2024-07-18')).toEqual({ input: 15, output: 60 });
    expect(priceOf(t, 'gpt-4o-2024-08-06')).toEqual({ input: 250, output: 1000 });
    expect(priceOf(t, 'claude-3-5-haiku-latest')).toEqual({ input: 80, output: 400 });
    expect(priceOf(t, 'claude-opus-4-1-20250805')).toEqual({ input: 1500, output: 7500 });
    expect(priceOf(t, 'GPT-4O')).toEqual({ input: 250, output: 1000 });
    expect(priceOf(t, 'gpt-4')).toBeNull(); // gpt-4o is not a price for gpt-4, nor the reverse
    expect(priceOf(t, 'gpt-4oo')).toBeNull();
    expect(priceOf(t, 'llama3.1:8b')).toBeNull();
  });

  test('cents per million tokens, to a millionth of a cent; no price costs 0', () => {
    expect(costCents({ input: 15, output: 60 }, { input_tokens: 1000, output_tokens: 500, total_tokens: 1500 })).toBe(0.045);
    expect(costCents({ input: 100_000, output: 200_000 }, { input_tokens: 100, output_tokens: 50, total_tokens: 150 })).toBe(20);
    expect(costCents(null, { input_tokens: 1e6, output_tokens: 1e6, total_tokens: 2e6 })).toBe(0);
  });

  test('AI_PRICES overrides and extends the table; bad entries are named', () => {
    const issues: string[] = [];
    const o = parsePriceOverrides('{"llama3.1": {"input": 0, "output": 0}, "GPT-4o": {"input": 1, "output": 2}, "bad": {"input": -1}}', (m) => issues.push(m));
    expect(issues).toEqual(['"bad": must be {"input": <cents>, "output": <cents>} with non-negative numbers']);
    const t = priceTable(o);
    expect(priceOf(t, 'gpt-4o')).toEqual({ input: 1, output: 2 });
    expect(priceOf(t, 'llama3.1:70b')).toEqual({ input: 0, output: 0 });
    parsePriceOverrides('nope', (m) => issues.push(m));
    expect(issues[1]).toMatch(/must be a JSON object/);
  });
});

describe('configuration', () => {
  test('AI_PROVIDER with its model, URL and key; the public endpoint by default', () => {
    expect(loadConfig({ AI_PROVIDER: 'anthropic', AI_MODEL: 'claude-haiku-4-5', AI_API_KEY: 'k' }).ai)
      .toMatchObject({ provider: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'k', model: 'claude-haiku-4-5' });
    expect(loadConfig({ AI_PROVIDER: 'openai', AI_MODEL: 'llama3.1', AI_BASE_URL: 'http://127.0.0.1:11434/v1/' }).ai)
      .toMatchObject({ provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', apiKey: null });
    expect(loadConfig({}).ai).toMatchObject({ provider: null, apiKey: null, model: null });
    expect(loadConfig({ AI_PROVIDER: '' }).ai.provider).toBeNull();
  });

  test('a wrong or incomplete setting is named, never the key', () => {
    expect(() => loadConfig({ AI_PROVIDER: 'gemini', AI_MODEL: 'x' })).toThrow(/AI_PROVIDER/);
    expect(() => loadConfig({ AI_PROVIDER: 'openai' })).toThrow('AI_PROVIDER needs AI_MODEL');
    expect(() => loadConfig({ AI_API_KEY: 'sk-secret-value', AI_MODEL: 'x' })).toThrow('AI_API_KEY, AI_MODEL need AI_PROVIDER (openai or anthropic)');
    expect(() => loadConfig({ AI_PROVIDER: 'openai', AI_MODEL: 'x', AI_BASE_URL: 'ftp://x' })).toThrow(/AI_BASE_URL/);
    expect(() => loadConfig({ AI_PRICES: '{"m": 3}' })).toThrow(/AI_PRICES/);
    let message = '';
    try { loadConfig({ AI_API_KEY: 'sk-secret-value' }); } catch (e) { message = (e as ConfigError).message; }
    expect(message).not.toContain('sk-secret-value');
  });
});

describe('where an ai_generate step goes', () => {
  const operator: AiConfig = { provider: 'openai', baseUrl: 'https://llm.example.com/v1', apiKey: 'sk-operator', model: 'gpt-4o-mini', prices: priceTable() };
  const none: AiConfig = { provider: null, baseUrl: 'https://api.openai.com/v1', apiKey: null, model: null, prices: priceTable() };
  const ref = { vault_id: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', path: 'ai/key' };

  test('nothing named: the operator\'s endpoint, model and key (plain http allowed there)', () => {
    expect(resolveStepTarget(operator, { prompt: 'p' })).toEqual({
      protocol: 'openai', baseUrl: 'https://llm.example.com/v1', model: 'gpt-4o-mini', key: { from: 'operator' }, allowHttp: true,
    });
  });

  test('the operator\'s key never goes to a URL or protocol the step chose', () => {
    expect(resolveStepTarget(operator, { prompt: 'p', base_url: 'https://evil.example.com/v1' }))
      .toMatchObject({ baseUrl: 'https://evil.example.com/v1', model: 'gpt-4o-mini', key: { from: 'none' }, allowHttp: false });
    expect(resolveStepTarget(operator, { prompt: 'p', base_url: 'https://llm.example.com/v1/' })).toMatchObject({ key: { from: 'operator' } });
    expect(resolveStepTarget(operator, { prompt: 'p', provider: 'anthropic', model: 'claude-haiku-4-5' }))
      .toEqual({ protocol: 'anthropic', baseUrl: 'https://api.anthropic.com', model: 'claude-haiku-4-5', key: { from: 'none' }, allowHttp: false });
  });

  test('a step\'s vault key is used wherever the step sends it', () => {
    expect(resolveStepTarget(none, { prompt: 'p', provider: 'openai', base_url: 'http://127.0.0.1:9/v1', model: 'm', api_key_secret: ref }))
      .toEqual({ protocol: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', key: { from: 'vault', ref }, allowHttp: false });
    expect(resolveStepTarget(operator, { prompt: 'p', api_key_secret: ref })).toMatchObject({ baseUrl: 'https://llm.example.com/v1', key: { from: 'vault', ref } });
  });

  test('without any provider, or without a model, the step cannot run', () => {
    expect(() => resolveStepTarget(none, { prompt: 'p' })).toThrow(AiStepError);
    expect(() => resolveStepTarget(none, { prompt: 'p' })).toThrow(/no model provider: this service has no default \(AI_PROVIDER is not set\)/);
    expect(() => resolveStepTarget(none, { prompt: 'p', provider: 'anthropic' })).toThrow('model: is required (there is no default model for provider anthropic)');
    expect(() => resolveStepTarget(operator, { prompt: 'p', provider: 'anthropic' })).toThrow(/model: is required/);
  });
});

test('a run adds up its steps\' tokens and exact cents, and rounds the total up to a cent', () => {
  expect(spendOfOutput({ text: 'x', usage: { total_tokens: 15 }, cost_cents: 0.25 })).toEqual({ tokens: 15, cents: 0.25 });
  expect(spendOfOutput(null)).toEqual({ tokens: 0, cents: 0 });
  // An activity failure wraps the step's ApplicationFailure, whose details carry the spend.
  expect(spendOfFailure({ cause: { details: [{ usage: { total_tokens: 9 }, cost_cents: 0.5 }] } })).toEqual({ tokens: 9, cents: 0.5 });
  expect(spendOfFailure(new Error('x'))).toEqual({ tokens: 0, cents: 0 });
  expect(runCostCents(0.1 + 0.2)).toBe(1);
  expect(runCostCents(20 + 20)).toBe(40);
  expect(runCostCents(0)).toBe(0);
});
