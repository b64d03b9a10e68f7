// The nightly credit job (issue 34 §2) on the test stack's worker: the workflow the
// `credit-maintenance` Schedule starts writes expired lots off in the ledger and mails the owners
// once per lot and threshold (a lot within 7 days gets the 7-day mail only; one within 30 the
// 30-day mail; a later one nothing). Run twice, it changes nothing more: every write is keyed by
// the lot. Each run is the Schedule's own action (triggered), which the worker's sweep created.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { call, closeDb, db, eventually, signup } from '../helpers/api.ts';
import { stackTemporalClient } from '../helpers/temporal-client.ts';
import { BILLING_TASK_QUEUE, CREDIT_CRON, CREDIT_SCHEDULE_ID } from '../../domain/billing/client.ts';
import type { Client } from '@temporalio/client';

let temporal: Client;
beforeAll(async () => { temporal = await stackTemporalClient(); });
afterAll(async () => {
  await temporal.connection.close();
  await closeDb();
});

const DAY = 86_400_000;
const lot = async (orgId: string, micros: number, expiresInMs: number) => {
  const id = randomUUID();
  await db().query(`INSERT INTO credit_lots (id, org_id, amount_micros, remaining_micros, expires_at, created_at)
    VALUES ($1, $2, $3, $3, $4, now() - interval '360 days')`, [id, orgId, micros, new Date(Date.now() + expiresInMs)]);
  return id;
};
/** Runs the job as its Schedule does (trigger), and waits for that run's totals. */
async function run(): Promise<{ expired: number; reminded7: number; reminded30: number }> {
  const handle = temporal.schedule.getHandle(CREDIT_SCHEDULE_ID);
  // The worker creates it from its first sweep after start.
  const described = await eventually('the credit schedule', () => handle.describe().catch(() => undefined), 60_000);
  const before = new Set(described.info.recentActions.map((a) => a.action.workflow.workflowId + a.action.workflow.firstExecutionRunId));
  await handle.trigger();
  const started = await eventually('the triggered run', async () => (await handle.describe()).info.recentActions
    .map((a) => a.action.workflow).find((w) => !before.has(w.workflowId + w.firstExecutionRunId)), 30_000);
  return temporal.workflow.getHandle(started.workflowId, started.firstExecutionRunId).result();
}
const mailsTo = (address: string) => fs.readFileSync(process.env.TEST_MAILBOX!, 'utf8').split('\n').filter(Boolean)
  .map((l) => JSON.parse(l) as { to: string[]; subject: string; text: string })
  .filter((m) => m.to.includes(address.toLowerCase()) && m.subject.includes('prepaid credits'));

test('expired lots are written off once; owners are mailed once per lot and threshold', async () => {
  const owner = await signup('credit-expiry');
  await db().query('INSERT INTO org_billing_accounts (org_id) VALUES ($1) ON CONFLICT DO NOTHING', [owner.orgId]);
  const expired = await lot(owner.orgId, 1_250_000, -DAY);
  await lot(owner.orgId, 2_000_000, 5 * DAY);
  await lot(owner.orgId, 3_500_000, 20 * DAY);
  await lot(owner.orgId, 4_000_000, 60 * DAY);

  const first = await run();
  expect(first.expired).toBeGreaterThanOrEqual(1);
  const { rows: [gone] } = await db().query('SELECT remaining_micros FROM credit_lots WHERE id = $1', [expired]);
  expect(gone.remaining_micros).toBe('0');
  const ledger = await call('GET', '/v1/billing/credits/transactions', { token: owner.token });
  expect(ledger.body.transactions).toEqual([expect.objectContaining({ type: 'expiry', amount_usd: '-1.25', balance_after_usd: '9.50' })]);
  expect((await call('GET', '/v1/billing/credits/balance', { token: owner.token })).body)
    .toMatchObject({ balance_usd: '9.50', expiring_within_90_days: { amount_cents: 950 } });

  // Mail is delivered by its own workflow: wait for both.
  const deadline = Date.now() + 30_000;
  while (mailsTo(owner.email).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(mailsTo(owner.email).map((m) => m.subject).sort()).toEqual([
    expect.stringMatching(/^\$2\.00 of prepaid credits expire on \d{4}-\d{2}-\d{2}$/),
    expect.stringMatching(/^\$3\.50 of prepaid credits expire on /),
  ].sort((a, b) => String(a).localeCompare(String(b))));
  expect(mailsTo(owner.email).find((m) => m.subject.startsWith('$2.00'))!.text).toContain('7 days or less');

  await run();
  const again = await call('GET', '/v1/billing/credits/transactions', { token: owner.token });
  expect(again.body.transactions).toHaveLength(1);
  const { rows } = await db().query('SELECT count(*)::int AS n FROM credit_reminders r JOIN credit_lots l ON l.id = r.lot_id WHERE l.org_id = $1', [owner.orgId]);
  expect(rows[0].n).toBe(3); // the 5-day lot: 7 and 30; the 20-day lot: 30
  expect(mailsTo(owner.email)).toHaveLength(2);
});

test('the nightly Schedule is in place (00:05 UTC)', async () => {
  const d = await eventually('the credit schedule', () => temporal.schedule.getHandle(CREDIT_SCHEDULE_ID).describe().catch(() => undefined), 60_000);
  expect(d.spec.calendars?.length ?? 0).toBeGreaterThan(0);
  expect(CREDIT_CRON).toBe('5 0 * * *');
  expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'creditMaintenanceWorkflow', taskQueue: BILLING_TASK_QUEUE });
});
