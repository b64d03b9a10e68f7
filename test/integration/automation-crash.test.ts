// A worker killed with SIGKILL at the worst moments of an automation run (issue 26 §1, §2, §8):
// just after it stored the run's approval, just after it recorded a human's decision, and while an
// http step waits for its answer. The api and worker run as processes of their own against a fresh
// database and namespace (IsolatedStack). A test-only trigger NOTIFYs when an approval is written,
// so the kill lands right after the commit, before the workflow task that made it completes.
import pg from 'pg';
import { call, closeDb } from '../helpers/api.ts';
import { waitFor } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { runWorkflowId } from '../../domain/automations/run-attributes.ts';

const stack = new IsolatedStack('runcrash');
let receiver: Receiver;
let listener: pg.Client;
let base: string;
let owner: string;
let agentId: string;
const notified: { channel: string; payload: string }[] = [];
let onNotify: ((payload: string) => void) | null = null;

beforeAll(async () => {
  receiver = await startReceiver();
  await stack.start({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  base = stack.apiUrl;
  ({ token: owner, agentId } = await stack.ownerWithAgent());
  await stack.pool.query(`
    CREATE FUNCTION test_approval_written() RETURNS trigger AS $$
    BEGIN PERFORM pg_notify('test_approval', NEW.status || ':' || NEW.run_id); RETURN NEW; END $$ LANGUAGE plpgsql;
    CREATE TRIGGER test_approval_written AFTER INSERT OR UPDATE ON approvals FOR EACH ROW EXECUTE FUNCTION test_approval_written();`);
  listener = new pg.Client({ connectionString: stack.env.DATABASE_URL });
  await listener.connect();
  listener.on('notification', (n) => {
    notified.push({ channel: n.channel, payload: n.payload ?? '' });
    onNotify?.(n.payload ?? '');
  });
  await listener.query('LISTEN test_approval');
}, 180_000);

afterAll(async () => {
  await listener?.end();
  await stack.stop();
  await receiver?.close();
  await closeDb();
});

/** Kills the worker the moment an approval is written with `status` (the first such write only). */
function killWhenApproval(status: string): Promise<string> {
  return new Promise((resolve) => {
    onNotify = (payload) => {
      if (!payload.startsWith(`${status}:`)) return;
      onNotify = null;
      process.kill(-stack.worker!.pid!, 'SIGKILL');
      resolve(payload.slice(status.length + 1));
    };
  });
}

async function restartWorker(): Promise<void> {
  const w = stack.worker!;
  if (w.exitCode === null && w.signalCode === null) await new Promise((r) => w.once('exit', r));
  stack.startWorker();
}

async function automation(steps: unknown[]): Promise<string> {
  const r = await call('POST', '/v1/automations', { base, token: owner, body: { name: `crash-${Date.now()}`, agent_id: agentId, trigger_type: 'manual', workflow_spec: { steps } } });
  expect(r.status).toBe(201);
  return r.body.id;
}

async function runEnds(automationId: string, runId: string, status: string): Promise<any> {
  return waitFor(`run ${runId} ${status}`, 120_000, async () => {
    const r = await call('GET', `/v1/automations/${automationId}/runs/${runId}`, { base, token: owner });
    return r.body.status === status ? r.body : undefined;
  });
}

const approvalsOf = async (runId: string) =>
  (await stack.pool.query<{ id: string; status: string }>('SELECT id, status FROM approvals WHERE run_id = $1 ORDER BY created_at', [runId])).rows;

test('killed just after storing the run\'s approval, then just after recording the decision: one approval, decided once, the run resumes once', async () => {
  const id = await automation([
    { type: 'approval_request', summary: { what: 'pay invoice 9' } },
    // A second between the decision and the request, so the kill lands before anything is sent.
    { type: 'wait', duration_secs: 1 },
    { type: 'http', method: 'POST', url: receiver.url('/after-approval'), body: { paid: true } },
  ]);
  const storedFor = killWhenApproval('pending');
  const t = await call('POST', `/v1/automations/${id}/trigger`, { base, token: owner });
  expect(t.status).toBe(200);
  const runId = t.body.id as string;
  expect(await storedFor).toBe(runId);
  await restartWorker();

  // The new worker replays the run and repeats the step's activity: it must find the approval the
  // first attempt stored, not add a second one (issue 26 §2).
  // The first worker never completed the workflow task that ran it: the step's marker in the
  // history is the new worker's.
  const handle = stack.temporal.workflow.getHandle(runWorkflowId(runId));
  await waitFor('the new worker ran the approval step', 120_000, async () => {
    const history = await handle.fetchHistory().catch(() => undefined);
    return history?.events?.some((e) => e.markerRecordedEventAttributes) ? true : undefined;
  });
  const approvals = await approvalsOf(runId);
  expect(approvals).toEqual([{ id: expect.any(String), status: 'pending' }]);
  const view = { approvalId: approvals[0]!.id };

  // A decision whose worker dies right after recording it: the repeated Update finds its own
  // decision and reports it made; the decider gets 200, and the run goes on at once (§1).
  const decidedFor = killWhenApproval('approved');
  const decide = call('POST', `/v1/approvals/${view.approvalId}/decide`, { base, token: owner, body: { decision: 'approve', reason: 'ok' } });
  expect(await decidedFor).toBe(runId);
  await restartWorker();
  const d = await decide;
  expect({ status: d.status, decision: d.body.status }).toEqual({ status: 200, decision: 'approved' });
  const run = await runEnds(id, runId, 'success');
  expect(run.step_results.map((s: any) => s.status)).toEqual(['success', 'success', 'success']);
  expect(receiver.received('/after-approval')).toHaveLength(1);
  expect(await approvalsOf(runId)).toEqual([{ id: view.approvalId, status: 'approved' }]);
}, 300_000);

test('killed while an http step waits for its answer: sent again after the restart, with the same Idempotency-Key', async () => {
  let release!: () => void;
  const killed = new Promise<void>((r) => { release = r; });
  receiver.respond('/in-flight', async (n) => { if (n === 1) await killed; return { status: 200, body: 'ok' }; });
  const id = await automation([
    { type: 'log', message: 'before' },
    { type: 'http', method: 'POST', url: receiver.url('/in-flight'), body: { charge: 1 } },
  ]);
  const t = await call('POST', `/v1/automations/${id}/trigger`, { base, token: owner });
  expect(t.status).toBe(200);
  await receiver.waitFor(1, '/in-flight', 60_000);
  await stack.killWorker();
  release();
  stack.startWorker();
  await runEnds(id, t.body.id, 'success');
  const keys = receiver.received('/in-flight').map((r) => r.headers['idempotency-key']);
  expect(keys).toEqual([`${t.body.id}:1`, `${t.body.id}:1`]);
}, 300_000);
