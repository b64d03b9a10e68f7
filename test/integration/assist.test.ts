// The automation assistant (spec §4.16): drafts from the stack's default model provider (a local
// fake speaking OpenAI chat completions) that pass the create validator, one repair round, 422
// when the model stays wrong, provider failures as 502/503 without the key, and 503 from an api
// without a provider. Sessions: a 15-minute user token that works. Humans only; both audited.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { decodeJwt } from 'jose';
import { call, closeDb, signup, type Account } from '../helpers/api.ts';
import { agentJwt, auditFor, registerAgent, type Agent } from '../helpers/agent-fixtures.ts';
import { freePort, spawnEntry, stopGroup, waitFor } from '../helpers/stack.ts';
import { sharedAiServer, DEFAULT_STACK_REPLY, STACK_AI_KEY, STACK_AI_MODEL, VALID_DRAFT } from '../helpers/shared-ai-server.ts';
import type { FakeAiServer } from '../helpers/fake-ai-server.ts';

let owner: Account;
let agent: Agent;
let fake: FakeAiServer;

beforeAll(async () => {
  fake = sharedAiServer();
  owner = await signup('assist');
  agent = await registerAgent(owner);
});
afterAll(async () => {
  fake.reset();
  await closeDb();
});
beforeEach(() => fake.reset());

const draft = (body: unknown, token = owner.token) => call('POST', '/v1/automations/assist/draft', { token, body });
const answer = (o: unknown) => ({ text: JSON.stringify(o) });

const CRON_DRAFT = {
  name: 'Weekday backup check', trigger_type: 'cron', cron_expr: '0 9 * * MON-FRI', event_filter: null,
  workflow_spec: { steps: [
    { type: 'http', name: 'check', url: 'https://example.com/backup/status' },
    { type: 'notify', channel: 'email', to: 'you@example.com', message: 'Backup status {{steps.check.status}}' },
  ] },
  reply: 'Checks the backup status every weekday at 09:00 Berlin time and mails you; replace the URL.',
};

describe('drafts', () => {
  test('a valid draft is returned as is and can be created unchanged; the operator key went to the provider', async () => {
    fake.script(answer(CRON_DRAFT));
    const r = await draft({ message: 'Every weekday at 9 check my backups and mail me', agent_id: agent.id, timezone: 'Europe/Berlin' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      draft: {
        name: CRON_DRAFT.name, trigger_type: 'cron', cron_expr: '0 9 * * MON-FRI', timezone: 'Europe/Berlin',
        workflow_spec: CRON_DRAFT.workflow_spec, agent_id: agent.id,
      },
      reply: CRON_DRAFT.reply,
    });
    const [req] = fake.requests();
    expect(req!.headers.authorization).toBe(`Bearer ${STACK_AI_KEY}`);
    expect(req!.body.model).toBe(STACK_AI_MODEL);
    const [system, user] = req!.body.messages;
    expect(system.role).toBe('system');
    for (const type of ['http', 'get_secret', 'condition', 'ai_generate', 'approval_request']) expect(system.content).toContain(`- ${type}:`);
    expect(system.content).toContain('Europe/Berlin');
    expect(user.content).toContain('Every weekday at 9 check my backups and mail me');
    // "Passes the same validator as a real create": it creates.
    const created = await call('POST', '/v1/automations', { token: owner.token, body: r.body.draft });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ trigger_type: 'cron', cron_expr: '0 9 * * MON-FRI', timezone: 'Europe/Berlin' });
    await call('DELETE', `/v1/automations/${created.body.id}`, { token: owner.token });
  });

  test('an invalid draft is sent back once with the validator\'s words, and the repaired one is returned', async () => {
    fake.script(
      answer({ ...VALID_DRAFT, workflow_spec: { steps: [{ type: 'wait', duration_secs: 99 }] } }),
      { text: `Sure! Here it is:\n\`\`\`json\n${JSON.stringify({ ...VALID_DRAFT, workflow_spec: { steps: [{ type: 'wait', duration_secs: 20 }] } })}\n\`\`\`` },
    );
    const r = await draft({ message: 'wait a bit' });
    expect(r.status).toBe(200);
    expect(r.body.draft.workflow_spec).toEqual({ steps: [{ type: 'wait', duration_secs: 20 }] });
    expect(r.body.draft).not.toHaveProperty('agent_id');
    const requests = fake.requests();
    expect(requests).toHaveLength(2);
    const repair = requests[1]!.body.messages[1].content as string;
    expect(repair).toContain('workflow_spec.steps[0].duration_secs: must be at most 30');
    expect(repair).toContain('"duration_secs":99');
    const events = await auditFor(owner, 'automation.assist_draft', owner.userId);
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events[0].details).toMatchObject({ outcome: 'drafted', repaired: true, model_calls: 2, tokens_used: 30, model: STACK_AI_MODEL });
  });

  test('a draft that stays invalid is refused with 422, never returned; an answer that is no JSON gets the repair too', async () => {
    fake.script({ text: 'I would suggest a cron job.' }, answer({ ...VALID_DRAFT, trigger_type: 'cron', cron_expr: null }));
    const r = await draft({ message: 'something' });
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toMatch(/problem\+json/);
    expect(r.body.detail).toMatch(/^The assistant's draft did not pass validation, even after one repair \(cron_expr: is required for trigger_type cron\)/);
    expect(r.body).not.toHaveProperty('draft');
    expect(fake.requests()).toHaveLength(2);
    expect(fake.requests()[1]!.body.messages[1].content).toContain('It was refused by the validator: the answer is not one JSON object');

    // Other shapes a model gets wrong: unknown trigger types, bad cron text, unknown events, step types.
    for (const bad of [
      { ...VALID_DRAFT, trigger_type: 'hourly' },
      { ...VALID_DRAFT, trigger_type: 'cron', cron_expr: 'every day' },
      { ...VALID_DRAFT, trigger_type: 'event', event_filter: { event_type: 'vault.exploded' } },
      { ...VALID_DRAFT, workflow_spec: [{ type: 'teleport' }] },
    ]) {
      fake.reset();
      fake.script(answer(bad), answer(bad));
      expect((await draft({ message: 'x' })).status).toBe(422);
    }
  });

  test('an event draft keeps its filter; the draft form {draft, reply} is read too', async () => {
    const event = { name: 'New secrets', trigger_type: 'event', cron_expr: null, event_filter: { event_type: 'secret.created' }, workflow_spec: [{ type: 'log', message: '{{_event.payload.path}}' }] };
    fake.script(answer({ draft: event, reply: 'Logs each new secret.' }));
    const r = await draft({ message: 'log new secrets' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ draft: { ...event, timezone: 'UTC' }, reply: 'Logs each new secret.' });
  });

  test('provider failures: 503 when it may pass (Retry-After passed on), 502 otherwise, 422 when the model declines; never the key', async () => {
    fake.script({ status: 429, message: `Rate limit reached for ${STACK_AI_KEY}`, headers: { 'retry-after': '7' } });
    const limited = await draft({ message: 'x' });
    expect(limited.status).toBe(503);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.body.detail).toMatch(/^The assistant's model provider is unavailable right now \(the provider answered HTTP 429: Rate limit reached for \[redacted\]\)/);
    expect(fake.requests()).toHaveLength(1); // the caller decides when to try again

    fake.script({ status: 500, message: 'boom' });
    expect((await draft({ message: 'x' })).status).toBe(503);

    fake.script({ status: 401, message: `Incorrect API key provided: ${STACK_AI_KEY.slice(0, 10)}***` });
    const denied = await draft({ message: 'x' });
    expect(denied.status).toBe(502);
    expect(denied.body.detail).toBe('The assistant\'s model provider failed: the provider refused the operator\'s credentials (HTTP 401); tell the operator.');

    fake.script({ raw: 'not json' });
    const broken = await draft({ message: 'x' });
    expect(broken.status).toBe(502);
    expect(broken.body.detail).toBe('The assistant\'s model provider failed: the provider\'s answer is not JSON.');

    fake.script({ refusal: 'I can\'t help with that.' });
    const declined = await draft({ message: 'x' });
    expect(declined.status).toBe(422);
    expect(declined.body.detail).toBe('The model declined to draft this automation (the model refused: I can\'t help with that.).');
    for (const r of [limited, denied, broken, declined]) expect(r.text).not.toContain(STACK_AI_KEY);
  });

  test('bad input is a 400 naming the field, before the model is asked', async () => {
    const cases: [unknown, string][] = [
      [{}, 'message'], [{ message: '   ' }, 'message'], [{ message: 'x'.repeat(8001) }, 'message'],
      [{ message: 'x', agent_id: 'nope' }, 'agent_id'], [{ message: 'x', timezone: 'Mars/Olympus' }, 'timezone'],
    ];
    for (const [body, field] of cases) {
      const r = await draft(body);
      expect({ body, status: r.status, field: r.body.errors?.[0]?.field }).toEqual({ body, status: 400, field });
    }
    const stranger = await signup('assist-stranger');
    const foreign = await draft({ message: 'x', agent_id: agent.id }, stranger.token);
    expect(foreign.status).toBe(400);
    expect(foreign.body.detail).toBe('agent_id: is not an active agent of your organization');
    expect(fake.requests()).toHaveLength(0);
  });
});

describe('sessions', () => {
  test('a 15-minute token of the caller with the assistant\'s scopes; it reads automations; audited', async () => {
    const runtimeId = '7d7e1f4c-2b1a-4c3d-9e8f-0a1b2c3d4e5f';
    const r = await call('POST', '/v1/automations/assist/session', { token: owner.token, body: { runtime_id: runtimeId } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      access_token: expect.any(String), expires_in: 900, scopes: ['automations:read', 'automations:assist', 'vaults:read'],
      runtime_id: runtimeId, runtime_status: null, cli_hint: expect.stringContaining('/v1/automations'),
    });
    expect(r.body.cli_hint).not.toContain(r.body.access_token);
    const claims = decodeJwt(r.body.access_token);
    expect(claims.sub).toBe(`user:${owner.userId}`);
    expect(claims.exp! - claims.iat!).toBe(900);
    expect(claims.scopes).toEqual(r.body.scopes);
    const list = await call('GET', '/v1/automations', { token: r.body.access_token });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body.automations)).toBe(true);
    const events = await auditFor(owner, 'automation.assist_session', String(claims.jti));
    expect(events).toHaveLength(1);
    expect(events[0].details).toMatchObject({ expires_in: 900, runtime_id: runtimeId });
    expect(JSON.stringify(events[0])).not.toContain(r.body.access_token);

    const bare = await call('POST', '/v1/automations/assist/session', { token: owner.token });
    expect(bare.status).toBe(200);
    expect(bare.body.runtime_id).toBeNull();
    expect((await call('POST', '/v1/automations/assist/session', { token: owner.token, body: { runtime_id: 'x' } })).status).toBe(400);
  });
});

test('humans only: an agent gets 403 on both routes, and the model is not asked', async () => {
  const jwt = await agentJwt(agent);
  for (const p of ['/v1/automations/assist/draft', '/v1/automations/assist/session']) {
    const r = await call('POST', p, { token: jwt, body: { message: 'x' } });
    expect({ p, status: r.status }).toEqual({ p, status: 403 });
    expect(r.body.detail).toMatch(/human/i);
  }
  expect(fake.requests()).toHaveLength(0);
  expect((await call('POST', '/v1/automations/assist/draft', { body: { message: 'x' } })).status).toBe(401);
});

describe('an api without a model provider', () => {
  let second: ChildProcess | undefined;
  let base: string;
  let logDir: string;

  beforeAll(async () => {
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-assist-api-'));
    const port = await freePort();
    // Same database, Temporal and root key as the stack (so its tokens work), no AI_* variables.
    second = spawnEntry('workers/api.ts', {
      DATABASE_URL: process.env.TEST_DATABASE_URL!, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
      PORT: String(port), DATA_DIR: process.env.TEST_DATA_DIR!, LOG_LEVEL: 'warn',
    }, path.join(logDir, 'api.log'));
    base = `http://127.0.0.1:${port}`;
    const child = second;
    await waitFor('api without AI', 60_000, async () => {
      const r = await fetch(`${base}/v1/health`).catch(() => undefined);
      return r?.status === 200 ? true : undefined;
    }, () => child.exitCode !== null);
  }, 90_000);
  afterAll(async () => {
    if (second) await stopGroup(second);
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  test('a draft is a clear 503 problem; sessions still work', async () => {
    const r = await call('POST', '/v1/automations/assist/draft', { base, token: owner.token, body: { message: 'anything' } });
    expect(r.status).toBe(503);
    expect(r.headers.get('content-type')).toMatch(/problem\+json/);
    expect(r.body.detail).toMatch(/^The automation assistant is not configured: the operator sets AI_PROVIDER and AI_MODEL/);
    expect((await call('POST', '/v1/automations/assist/session', { base, token: owner.token })).status).toBe(200);
    expect(fake.requests()).toHaveLength(0);
  });
});

test('the stack fake\'s unscripted answer is a valid draft (what route fuzzing gets)', async () => {
  fake.setDefault(DEFAULT_STACK_REPLY);
  const r = await draft({ message: 'anything' });
  expect(r.status).toBe(200);
  expect(r.body.draft.name).toBe(VALID_DRAFT.name);
});
