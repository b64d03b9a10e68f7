// Events reach organization webhooks end to end: a real api writes the outbox, the real worker's
// dispatcher and Temporal workflows deliver to a real local receiver, which verifies both
// signatures. Retries with backoff, exhaustion, non-retryable answers, manual retry, disabled and
// deleted webhooks, and the SSRF check at send time. Who sends round 1: the dispatcher itself for
// a quiet moment's lone small batch, the batches' workflows for a burst.
import { createHmac } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { call, closeDb, db, eventually, signup, type Account } from '../helpers/api.ts';
import { newVault, putOk, rnd, secretUrl } from '../helpers/vault-fixtures.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { stackTemporalClient } from '../helpers/temporal-client.ts';
import { verifyBodyHex } from '../../domain/webhooks/signature.ts';
import { webhookBatchWorkflowId } from '../../domain/webhooks/client.ts';

let receiver: Receiver;
let temporal: Client;

beforeAll(async () => {
  receiver = await startReceiver();
  temporal = await stackTemporalClient();
});
afterAll(async () => {
  await receiver.close();
  await temporal.connection.close();
  await closeDb();
});

type Hook = { id: string; secret: string; path: string };

async function register(owner: Account, events: string[], path = `/${rnd('hook')}`): Promise<Hook> {
  const r = await call('POST', '/v1/webhooks', { token: owner.token, body: { url: receiver.url(path), events, description: 'test receiver' } });
  expect(r.status).toBe(201);
  return { id: r.body.id, secret: r.body.secret, path };
}

const deliveries = async (owner: Account, hook: Hook, query = '') =>
  (await call('GET', `/v1/webhooks/${hook.id}/deliveries${query}`, { token: owner.token })).body.deliveries as any[];

/** The one delivery of `hook` once it reached `status`. */
async function settled(owner: Account, hook: Hook, status: string, timeoutMs = 30_000): Promise<any> {
  return eventually(`a ${status} delivery to ${hook.path}`, async () => {
    const list = await deliveries(owner, hook);
    return list.length === 1 && list[0].status === status ? list[0] : undefined;
  }, timeoutMs);
}

/** The Standard Webhooks check a receiver library makes. */
function standardSignatureOk(secret: string, h: Record<string, any>, raw: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${h['webhook-id']}.${h['webhook-timestamp']}.${raw}`).digest('base64');
  return String(h['webhook-signature']).split(' ').includes(`v1,${expected}`);
}

describe('webhook delivery', () => {
  test('a secret write reaches a subscribed webhook, signed both ways, and the history says so', async () => {
    const owner = await signup('wh-deliver');
    const hook = await register(owner, ['secret.created']);
    const vault = await newVault(owner);
    await putOk(owner, vault, 'db/password', 'the-secret-value-42');

    const [got] = await receiver.waitFor(1, hook.path);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(verifyBodyHex(hook.secret, got!.raw, String(got!.headers['x-webhook-signature']))).toBe(true);
    expect(verifyBodyHex('whsec_wrong', got!.raw, String(got!.headers['x-webhook-signature']))).toBe(false);
    expect(got!.headers['x-1claw-signature']).toBe(got!.headers['x-webhook-signature']);
    expect(standardSignatureOk(hook.secret, got!.headers, got!.raw)).toBe(true);
    expect(Math.abs(Number(got!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(got!.body).toEqual({
      id: got!.headers['webhook-id'], type: 'secret.created', created_at: expect.any(String), org_id: owner.orgId,
      data: { vault_id: vault, secret_id: expect.any(String), path: 'db/password', version: 1, type: expect.any(String), actor: `user:${owner.userId}` },
    });
    expect(got!.raw).not.toContain('the-secret-value-42');

    const d = await settled(owner, hook, 'succeeded');
    expect(d).toMatchObject({ webhook_id: hook.id, event_id: got!.body.id, event_type: 'secret.created', attempt_count: 1, last_status_code: 200 });
    expect(d.attempts).toEqual([expect.objectContaining({ attempt: 1, run: 1, status_code: 200, response_excerpt: 'ok', duration_ms: expect.any(Number) })]);
  });

  test('only subscribed, active webhooks of the same organization receive an event; `*` receives all', async () => {
    const owner = await signup('wh-filter');
    const other = await signup('wh-filter-other');
    const policiesOnly = await register(owner, ['policy.created']);
    const everything = await register(owner, ['*']);
    const disabled = await register(owner, ['secret.created', 'secret.updated', 'secret.deleted']);
    const otherOrg = await register(other, ['*']);
    expect((await call('PATCH', `/v1/webhooks/${disabled.id}`, { token: owner.token, body: { is_active: false } })).status).toBe(200);
    const vault = await newVault(owner);
    await putOk(owner, vault, 'a', 'v1');
    await putOk(owner, vault, 'a', 'v2');
    expect((await call('DELETE', secretUrl(vault, 'a'), { token: owner.token })).status).toBe(204);
    // A marker event that `policiesOnly` does subscribe to, written last: once it has arrived, any
    // earlier secret event would have been dispatched too (one dispatcher, in order per organization).
    const agent = await call('POST', '/v1/agents', { token: owner.token, body: { name: rnd('agent') } });
    await call('POST', `/v1/vaults/${vault}/policies`, { token: owner.token, body: { principal_type: 'agent', principal_id: agent.body.agent.id, secret_path_pattern: '**', permissions: ['read'] } });

    const all = await receiver.waitFor(5, everything.path);
    expect(all.map((r) => r.body.type)).toEqual(expect.arrayContaining(['secret.created', 'secret.updated', 'secret.deleted', 'agent.created', 'policy.created']));
    const policies = await receiver.waitFor(1, policiesOnly.path);
    expect(policies.map((r) => r.body.type)).toEqual(['policy.created']);
    expect(receiver.received(disabled.path)).toEqual([]);
    expect(receiver.received(otherOrg.path)).toEqual([]);
    expect(await deliveries(owner, disabled)).toEqual([]);
  });

  test('a failing receiver is retried with growing waits until it answers', async () => {
    const owner = await signup('wh-retry');
    const hook = await register(owner, ['secret.created']);
    receiver.respond(hook.path, (n) => (n <= 2 ? { status: 503, body: 'busy' } : { status: 204 }));
    await putOk(owner, await newVault(owner), 'retry/me', 'x');
    const d = await settled(owner, hook, 'succeeded');
    expect(d.attempt_count).toBe(3);
    expect(d.attempts.map((a: any) => [a.attempt, a.status_code])).toEqual([[1, 503], [2, 503], [3, 204]]);
    expect(d.attempts[0].response_excerpt).toBe('busy');
    expect(d.attempts[0].error).toMatch(/503/);
    const got = receiver.received(hook.path);
    expect(new Set(got.map((r) => r.raw)).size).toBe(1); // the same bytes every time
    // Test stack: first retry after 0.1 s, then ×3 (the dev server fires short timers after about
    // 1 s, so only the lower bounds are checked here; test/workflows checks the exact schedule).
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(90);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(270);
  });

  test('after 6 failed attempts the delivery is failed; a manual retry sends it again as a new run', async () => {
    const owner = await signup('wh-exhaust');
    const hook = await register(owner, ['secret.created']);
    let healthy = false;
    receiver.respond(hook.path, () => (healthy ? { status: 200 } : { status: 500, body: 'down' }));
    await putOk(owner, await newVault(owner), 'exhaust/me', 'x');
    const failed = await settled(owner, hook, 'failed', 60_000);
    expect(failed.attempt_count).toBe(6);
    expect(failed.attempts).toHaveLength(6);
    expect(failed.attempts.every((a: any) => a.status_code === 500 && a.run === 1)).toBe(true);
    expect(receiver.received(hook.path)).toHaveLength(6);

    healthy = true;
    const retried = await call('POST', `/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`, { token: owner.token });
    expect(retried.status).toBe(202);
    const ok = await settled(owner, hook, 'succeeded');
    expect(ok.id).toBe(failed.id);
    expect(ok.attempts.at(-1)).toMatchObject({ attempt: 7, run: 2, status_code: 200 });
    expect(receiver.received(hook.path)).toHaveLength(7);
  });

  test('a 4xx other than 408/429 is not retried; 429 is', async () => {
    const owner = await signup('wh-4xx');
    const rejecting = await register(owner, ['secret.created']);
    const throttling = await register(owner, ['secret.created']);
    receiver.respond(rejecting.path, () => ({ status: 410, body: 'gone' }));
    receiver.respond(throttling.path, (n) => (n === 1 ? { status: 429 } : { status: 200 }));
    await putOk(owner, await newVault(owner), 'x', 'x');
    const rejected = await settled(owner, rejecting, 'failed');
    expect(rejected.attempt_count).toBe(1);
    expect(rejected.attempts[0]).toMatchObject({ status_code: 410, response_excerpt: 'gone' });
    expect((await settled(owner, throttling, 'succeeded')).attempt_count).toBe(2);
  });

  test('a redirect is a failed attempt and is never followed', async () => {
    const owner = await signup('wh-redirect');
    const hook = await register(owner, ['secret.created']);
    receiver.respond(hook.path, () => ({ status: 302, headers: { location: receiver.url('/elsewhere') } }));
    await putOk(owner, await newVault(owner), 'x', 'x');
    const d = await settled(owner, hook, 'failed');
    expect(d.attempts[0].error).toMatch(/redirect/);
    expect(receiver.received('/elsewhere')).toEqual([]);
  });

  test('a disabled or deleted webhook gets no further attempts, pending retries included', async () => {
    const owner = await signup('wh-stop');
    const toDisable = await register(owner, ['secret.created']);
    const toDelete = await register(owner, ['secret.created']);
    // Both first attempts are held open until the webhooks are changed, then fail with 503.
    let release!: () => void;
    const changed = new Promise<void>((r) => { release = r; });
    for (const h of [toDisable, toDelete]) receiver.respond(h.path, async () => { await changed; return { status: 503 }; });
    await putOk(owner, await newVault(owner), 'x', 'x');
    await receiver.waitFor(1, toDisable.path);
    await receiver.waitFor(1, toDelete.path);
    const [pending] = await deliveries(owner, toDisable);
    expect(pending.status).toBe('pending');
    expect((await call('PATCH', `/v1/webhooks/${toDisable.id}`, { token: owner.token, body: { is_active: false } })).status).toBe(200);
    expect((await call('DELETE', `/v1/webhooks/${toDelete.id}`, { token: owner.token })).status).toBe(204);
    release();
    // Round 1 ends with both 503s on record and nothing left pending (the disabled webhook's
    // delivery was cancelled with it, the deleted one's is gone), so no round can send again.
    const cancelled = await eventually('the held attempt\'s answer on record', async () => {
      const [d] = await deliveries(owner, toDisable);
      return d?.attempts[0]?.status_code === 503 ? d : undefined;
    });
    expect(cancelled).toMatchObject({ status: 'cancelled', attempts: [expect.objectContaining({ attempt: 1, status_code: 503 })] });
    const { rows } = await db().query(
      `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending FROM webhook_deliveries
       WHERE batch_id = (SELECT batch_id FROM webhook_deliveries WHERE id = $1)`, [pending.id]);
    expect(rows[0].pending).toBe(0);
    expect(receiver.received(toDisable.path)).toHaveLength(1);
    expect(receiver.received(toDelete.path)).toHaveLength(1);
    const retry = await call('POST', `/v1/webhooks/${toDisable.id}/deliveries/${pending.id}/retry`, { token: owner.token });
    expect(retry.status).toBe(409);
  });

  test('a webhook disabled while its batch\'s workflow retries: the workflow ends with that round, nothing more is sent', async () => {
    const owner = await signup('wh-stop-retry');
    const hook = await register(owner, ['secret.created']);
    // Round 1 fails at once; the workflow's round 2 is held until the webhook is disabled.
    let release!: () => void;
    const disabled = new Promise<void>((r) => { release = r; });
    receiver.respond(hook.path, async (n) => { if (n === 2) await disabled; return { status: 503 }; });
    await putOk(owner, await newVault(owner), 'x', 'x');
    await receiver.waitFor(2, hook.path);
    expect((await call('PATCH', `/v1/webhooks/${hook.id}`, { token: owner.token, body: { is_active: false } })).status).toBe(200);
    release();
    const [d] = await deliveries(owner, hook);
    const { rows } = await db().query('SELECT batch_id FROM webhook_deliveries WHERE id = $1', [d.id]);
    expect(await temporal.workflow.getHandle(webhookBatchWorkflowId(rows[0].batch_id)).result()).toEqual({ rounds: 2, failed: 0 });
    expect(receiver.received(hook.path)).toHaveLength(2);
    expect(await settled(owner, hook, 'cancelled')).toMatchObject({ attempt_count: 2 });
  });

  test('the address is checked again at send time: a stored URL that now points inside is refused, not sent', async () => {
    const owner = await signup('wh-ssrf-send');
    const hook = await register(owner, ['secret.created']);
    // As if the URL had been stored before a policy change: only the send-time check stands in the way.
    await db().query('UPDATE webhooks SET url = $1 WHERE id = $2', ['https://169.254.169.254/latest/meta-data/', hook.id]);
    await putOk(owner, await newVault(owner), 'x', 'x');
    const d = await settled(owner, hook, 'failed');
    expect(d.attempt_count).toBe(1);
    expect(d.attempts[0].error).toMatch(/^refused/);
    expect(d.attempts[0].status_code).toBeUndefined();
  });
});

describe('who sends the first round', () => {
  const batchesOf = async (hook: Hook) => (await db().query<{ batch_id: string; n: number; first_seq: string; last_seq: string; started: boolean }>(
    `SELECT d.batch_id, count(*)::int AS n, min(e.seq)::text AS first_seq, max(e.seq)::text AS last_seq, bool_and(d.workflow_started_at IS NOT NULL) AS started
     FROM webhook_deliveries d JOIN event_outbox e ON e.id = d.event_id WHERE d.webhook_id = $1 GROUP BY d.batch_id ORDER BY min(e.seq)`, [hook.id])).rows;

  test('one event at a quiet moment: the dispatcher sends it itself, with its attempt on record and no workflow', async () => {
    const owner = await signup('wh-direct');
    const hook = await register(owner, ['secret.created']);
    await putOk(owner, await newVault(owner), 'direct/one', 'x');
    const [got] = await receiver.waitFor(1, hook.path);
    const d = await settled(owner, hook, 'succeeded');
    expect(d).toMatchObject({ event_id: got!.body.id, attempt_count: 1 });
    expect(d.attempts).toEqual([expect.objectContaining({ attempt: 1, run: 1, status_code: 200 })]);
    const [batch] = await batchesOf(hook);
    expect(batch).toMatchObject({ n: 1, started: false });
    await expect(temporal.workflow.getHandle(webhookBatchWorkflowId(batch!.batch_id)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  test('a burst committed at once is batched: 250 events make batches of 200 and 50 in event order, each delivered by its workflow', async () => {
    const owner = await signup('wh-burst');
    const hook = await register(owner, ['secret.created']);
    const client = await db().connect();
    try {
      // One transaction: the dispatcher's next pass finds all 250 at once, as after a burst of writes.
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO event_outbox (id, org_id, event_type, payload)
         SELECT gen_random_uuid(), $1, 'secret.created', jsonb_build_object('n', i) FROM generate_series(1, 250) AS i`, [owner.orgId]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const got = await receiver.waitFor(250, hook.path, 120_000);
    expect(new Set(got.map((r) => r.body.data.n)).size).toBe(250);
    const batches = await batchesOf(hook);
    expect(batches.map((b) => b.n)).toEqual([200, 50]);
    expect(BigInt(batches[0]!.last_seq)).toBeLessThan(BigInt(batches[1]!.first_seq)); // the first batch holds the earliest events
    expect(batches.every((b) => b.started)).toBe(true);
    for (const b of batches) expect(await temporal.workflow.getHandle(webhookBatchWorkflowId(b.batch_id)).result()).toEqual({ rounds: 1, failed: 0 });
  });
});
