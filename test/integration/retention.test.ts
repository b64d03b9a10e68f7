// Retention (domain/retention): what the daily prune deletes and what it keeps.
//   - On a database of its own (migrated here, no dispatcher), with batches of 3 rows: dispatched
//     events, finished deliveries (with their attempts), execution events and
//     x402 payments settled older than RETENTION_DAYS go; recent ones, undispatched events, pending
//     deliveries (and their events), deliveries finished recently, x402 payments not settled
//     (verifying, settle_failed) or settled recently, and the audit log stay. A second run deletes
//     nothing more, and RETENTION_DAYS=0 deletes nothing at all.
//   - On the test stack: the worker keeps a daily Schedule, and a run of it prunes the stack's
//     own old execution events while the organization's audit chain still verifies.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { call, closeDb, db, eventually, signup } from '../helpers/api.ts';
import { pgEm } from '../helpers/pg-em.ts';
import { stackTemporalClient } from '../helpers/temporal-client.ts';
import { migrate } from '../../db/migrate.ts';
import { createRetentionActivities, type RetentionActivities } from '../../activities/retention.ts';
import { RETENTION_CRON, RETENTION_SCHEDULE_ID } from '../../domain/retention/client.ts';
import type { Logger } from '../../domain/log.ts';

afterAll(closeDb);

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** What the workflow does (workflows/retention/retention-prune.ts): steps until each part is done. */
type Totals = { events: number; deliveries: number; executionEvents: number; x402Payments: number; steps: number };
async function runPrune(a: RetentionActivities): Promise<Totals> {
  const t = { events: 0, deliveries: 0, executionEvents: 0, x402Payments: 0, steps: 0 };
  let after = '0';
  for (;;) {
    const s = await a.pruneOutbox(after);
    t.steps++;
    t.events += s.events;
    t.deliveries += s.deliveries;
    after = s.afterSeq;
    if (s.done) break;
  }
  for (;;) {
    const s = await a.pruneExecutionEvents();
    t.steps++;
    t.executionEvents += s.executionEvents;
    if (s.done) break;
  }
  for (;;) {
    const s = await a.pruneX402Payments();
    t.steps++;
    t.x402Payments += s.x402Payments;
    if (s.done) break;
  }
  return t;
}

describe('on a database of its own', () => {
  const name = `retention_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let pool: pg.Pool;
  const q = (text: string, values: unknown[] = []) => pool.query(text, values);
  const ago = (days: number) => new Date(Date.now() - days * 86_400_000);

  beforeAll(async () => {
    await db().query(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    pool = new pg.Pool({ connectionString: url.toString(), max: 3 });
    await migrate(pgEm(pool), () => {});
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    // pool.end() resolves while its clients' connections are still closing: a forced DROP then
    // terminates one of them, whose error event no one listens to any more. Wait until they are gone.
    await eventually(`the connections to ${name} to close`, async () =>
      (await db().query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name])).rows[0].n === 0 ? true : undefined);
    await db().query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  const org = randomUUID();
  const agent = randomUUID();
  const webhook = randomUUID();

  async function event(label: string, createdDaysAgo: number, dispatched: boolean): Promise<string> {
    const id = randomUUID();
    await q(`INSERT INTO event_outbox (id, org_id, event_type, payload, created_at, dispatched_at) VALUES ($1, $2, 'secret.created', $3, $4, $5)`,
      [id, org, JSON.stringify({ label }), ago(createdDaysAgo), dispatched ? ago(createdDaysAgo) : null]);
    return id;
  }
  async function delivery(eventId: string, status: string, completedDaysAgo: number | null): Promise<string> {
    const id = randomUUID();
    await q(`INSERT INTO webhook_deliveries (id, webhook_id, org_id, event_id, event_type, status, created_at, completed_at)
      VALUES ($1, $2, $3, $4, 'secret.created', $5, $6, $7)`, [id, webhook, org, eventId, status, ago(40), completedDaysAgo === null ? null : ago(completedDaysAgo)]);
    await q('INSERT INTO webhook_delivery_attempts (delivery_id, attempt, run, started_at) VALUES ($1, 1, 1, $2)', [id, ago(40)]);
    return id;
  }
  const ids = async (table: string) => new Set((await q(`SELECT id FROM ${table}`)).rows.map((r: { id: string }) => r.id));
  async function x402Payment(status: string, createdDaysAgo: number, settledDaysAgo: number | null): Promise<string> {
    const digest = randomUUID().replace(/-/g, '');
    await q(`INSERT INTO x402_payments (digest, org_id, route, amount, network, status, payment, requirements, created_at, settled_at)
      VALUES ($1, $2, '/v1/vaults/:vault_id/secrets/*path', '1000', 'eip155:8453', $3, '{}', '{}', $4, $5)`,
    [digest, org, status, ago(createdDaysAgo), settledDaysAgo === null ? null : ago(settledDaysAgo)]);
    return digest;
  }
  const digests = async () => new Set((await q('SELECT digest FROM x402_payments')).rows.map((r: { digest: string }) => r.digest));

  test('old dispatched events, finished deliveries, execution events and settled x402 payments go, in batches; everything else stays', async () => {
    await q("INSERT INTO organizations (id, name) VALUES ($1, 'retention')", [org]);
    await q("INSERT INTO agents (id, org_id, name, status) VALUES ($1, $2, 'bot', 'active')", [agent, org]);
    await q("INSERT INTO webhooks (id, org_id, url, events, secret_sealed) VALUES ($1, $2, 'https://example.com/hook', '{secret.created}', '\\x00')", [webhook, org]);

    const gone: string[] = [];
    const kept: string[] = [];
    // Seven old events with nothing attached, and four whose finished deliveries are old: all go.
    for (let i = 0; i < 7; i++) gone.push(await event(`old-${i}`, 40, true));
    const oldDeliveries: string[] = [];
    for (const status of ['succeeded', 'failed', 'cancelled', 'succeeded']) {
      const e = await event(`old-delivered-${status}`, 40, true);
      gone.push(e);
      oldDeliveries.push(await delivery(e, status, 39));
    }
    // Kept: an old event not yet dispatched; an old one with a pending delivery; an old one whose
    // delivery finished recently (a retry by hand); recent events.
    kept.push(await event('old-undispatched', 40, false));
    const pendingEvent = await event('old-pending', 40, true);
    kept.push(pendingEvent);
    const pendingDelivery = await delivery(pendingEvent, 'pending', null);
    const retriedEvent = await event('old-retried', 40, true);
    kept.push(retriedEvent);
    const retriedDelivery = await delivery(retriedEvent, 'succeeded', 2);
    for (let i = 0; i < 3; i++) kept.push(await event(`recent-${i}`, 1, true));

    const oldExec: string[] = [];
    const newExec: string[] = [];
    for (const [list, days] of [[oldExec, 45], [oldExec, 31], [newExec, 29], [newExec, 0]] as const) {
      for (let i = 0; i < 4; i++) {
        const id = randomUUID();
        await q(`INSERT INTO execution_events (id, org_id, agent_id, binding_id, binding_name, intent_type, status, created_at)
          VALUES ($1, $2, $3, $4, 'b', 'http', 'success', $5)`, [id, org, agent, randomUUID(), ago(days)]);
        list.push(id);
      }
    }
    // x402 payments: settled over 30 days ago go; settled recently (a late retry of an old claim),
    // still verifying, or failed to settle (however old) stay.
    const oldSettled: string[] = [];
    for (let i = 0; i < 4; i++) oldSettled.push(await x402Payment('settled', 40, 40 - i));
    const keptPayments = [
      await x402Payment('settled', 40, 2),
      await x402Payment('settled', 1, 1),
      await x402Payment('settle_failed', 400, null),
      await x402Payment('verifying', 400, null),
    ];
    // Audit events years old (the chain is not checked here; on the stack below it is).
    for (let i = 0; i < 5; i++) {
      await q(`INSERT INTO audit_events (id, chain_key, org_id, action, created_at, prev_hash, integrity_hash)
        VALUES ($1, $2::text, $2::uuid, 'secret.read', $3, 'x', 'y')`, [randomUUID(), org, ago(900)]);
    }

    const activities = createRetentionActivities({ em: () => pgEm(pool), retentionDays: 30, log: quiet, bounds: { batch: 3, batchesPerStep: 2 } });
    const first = await runPrune(activities);
    expect(first).toMatchObject({
      events: gone.length, deliveries: oldDeliveries.length, executionEvents: oldExec.length, x402Payments: oldSettled.length,
    });
    expect(first.steps).toBeGreaterThan(2); // bounded: the work took several steps

    const events = await ids('event_outbox');
    for (const id of gone) expect(events.has(id)).toBe(false);
    for (const id of kept) expect(events.has(id)).toBe(true);
    const deliveries = await ids('webhook_deliveries');
    for (const id of oldDeliveries) expect(deliveries.has(id)).toBe(false);
    expect(deliveries).toEqual(new Set([pendingDelivery, retriedDelivery]));
    const attempts = (await q('SELECT delivery_id FROM webhook_delivery_attempts')).rows.map((r: { delivery_id: string }) => r.delivery_id).sort();
    expect(attempts).toEqual([pendingDelivery, retriedDelivery].sort());
    expect(await ids('execution_events')).toEqual(new Set(newExec));
    expect(await digests()).toEqual(new Set(keptPayments));
    expect((await q('SELECT count(*)::int AS n FROM audit_events')).rows[0].n).toBe(5);

    // A re-delivered run finds nothing more; RETENTION_DAYS=0 deletes nothing, however old.
    const nothing = { events: 0, deliveries: 0, executionEvents: 0, x402Payments: 0 };
    expect(await runPrune(activities)).toMatchObject(nothing);
    const keepAll = createRetentionActivities({ em: () => pgEm(pool), retentionDays: 0, log: quiet });
    await q('UPDATE execution_events SET created_at = $1', [ago(4000)]);
    await q("UPDATE x402_payments SET status = 'settled', created_at = $1, settled_at = $1", [ago(4000)]);
    expect(await runPrune(keepAll)).toMatchObject(nothing);
    expect((await ids('execution_events')).size).toBe(newExec.length);
    expect((await digests()).size).toBe(keptPayments.length);
  });
});

test('the stack runs the prune from a daily Schedule; old execution events go and the audit chain still verifies', async () => {
  const owner = await signup('retention');
  const agent = await call('POST', '/v1/agents', { token: owner.token, body: { name: 'retention-bot' } });
  expect(agent.status).toBe(201);
  const insert = (days: number) => db().query(`INSERT INTO execution_events (id, org_id, agent_id, binding_id, binding_name, intent_type, status, created_at)
    VALUES ($1, $2, $3, $4, 'b', 'http', 'success', now() - make_interval(days => $5)) RETURNING id`,
  [randomUUID(), owner.orgId, agent.body.agent_id, randomUUID(), days]).then((r) => r.rows[0].id as string);
  const old = await insert(400);
  const recent = await insert(1);

  const temporal = await stackTemporalClient();
  try {
    const handle = temporal.schedule.getHandle(RETENTION_SCHEDULE_ID);
    // The worker creates it from its first sweep after start.
    const described = await eventually('the retention schedule', () => handle.describe().catch(() => undefined), 60_000);
    expect(described.spec.calendars?.length ?? 0).toBeGreaterThan(0);
    expect(RETENTION_CRON).toBe('17 3 * * *');
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'retentionPruneWorkflow', taskQueue: 'vault-retention' });

    const before = new Set(described.info.recentActions.map((a) => a.action.workflow.workflowId));
    await handle.trigger();
    const workflowId = await eventually('the triggered run', async () => (await handle.describe()).info.recentActions
      .map((a) => a.action.workflow.workflowId).find((id) => !before.has(id)), 30_000);
    const result = await temporal.workflow.getHandle(workflowId).result();
    expect(result.executionEvents).toBeGreaterThanOrEqual(1);
  } finally {
    await temporal.connection.close();
  }
  const left = (await db().query('SELECT id FROM execution_events WHERE org_id = $1', [owner.orgId])).rows.map((r) => r.id);
  expect(left).toEqual([recent]);
  expect(left).not.toContain(old);
  const verify = await call('GET', '/v1/audit/verify', { token: owner.token });
  expect(verify.status).toBe(200);
  expect(verify.body).toMatchObject({ chain_valid: true, head_matches: true });
  expect(verify.body.events_checked).toBeGreaterThan(0);
}, 120_000);
