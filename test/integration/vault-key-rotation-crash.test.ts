// A vault key rotation of 1,000 secret versions survives a worker killed with SIGKILL in the middle
// of the job: a new worker finishes it, every version reads back through the API, every row is
// under the new key, and the job's count equals the total (no batch counted twice). Runs its own
// api and worker processes against a fresh database on the shared PostgreSQL and a fresh namespace
// on the shared Temporal server, so the test stack's own worker cannot pick up this test's work.
import fs from 'node:fs';
import path from 'node:path';
import { call, closeDb } from '../helpers/api.ts';
import { inParallel, rnd } from '../helpers/vault-fixtures.ts';
import { vaultKeyRotationWorkflowId } from '../../domain/key-rotation/client.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';
import { activityRetries } from '../helpers/history-text.ts';
import { completedByNewWorker, killWorkerMidJob } from '../helpers/rotation-crash.ts';

const SECRETS = 50;
const VERSIONS = 20;
const TOTAL = SECRETS * VERSIONS;

const stack = new IsolatedStack('rotcrash');

beforeAll(() => stack.start(), 180_000);

afterAll(async () => {
  await stack.stop();
  await closeDb();
});

test(`SIGKILL of the worker in the middle of a rotation of ${TOTAL} versions: a new worker completes it, every version reads back under the new key, no batch counted twice`, async () => {
  const t0 = Date.now();
  const base = stack.apiUrl;
  const signup = await call('POST', '/v1/auth/signup', { base, body: { email: `${stack.namespace}@example.com`, password: 'correct-horse-battery' } });
  expect(signup.status).toBe(200);
  const token = signup.body.access_token as string;
  // Billing has no API yet: lift the tier directly, as webhook-crash does.
  await stack.pool.query(`UPDATE organizations SET billing_tier = 'enterprise'`);
  const vault = await call('POST', '/v1/vaults', { base, token, body: { name: 'rotation-crash' } });
  expect(vault.status).toBe(201);
  const vaultId = vault.body.id as string;
  const secretUrl = (p: string) => `/v1/vaults/${vaultId}/secrets/${p}`;

  // 50 secrets written side by side, each through its 20 versions in order.
  const values = new Map<string, string>(); // `${path}@${version}` → value
  await inParallel(Array.from({ length: SECRETS }, (_, i) => `crash/s${i}`), SECRETS, async (p) => {
    for (let v = 1; v <= VERSIONS; v++) {
      const value = rnd(`${p}-v${v}`);
      const r = await call('PUT', secretUrl(p), { base, token, body: { value }, unchecked: true });
      if (r.status !== 201 || r.body.version !== v) throw new Error(`write ${p} v${v}: ${r.status} ${r.text}`);
      values.set(`${p}@${v}`, value);
    }
  });
  expect(values.size).toBe(TOTAL);
  const oldRef = (await stack.pool.query('SELECT key_ref FROM vaults WHERE id = $1', [vaultId])).rows[0].key_ref as string;
  const tWritten = Date.now();

  const started = await call('POST', `/v1/vaults/${vaultId}/rotate-key`, { base, token });
  expect(started.status).toBe(202);
  expect(started.body).toEqual(expect.objectContaining({ status: 'pending', total_secrets: TOTAL, processed: 0 }));
  expect(started.headers.get('location')).toBe(`/v1/vaults/${vaultId}/rotate-key/${started.body.id}`);
  const jobId = started.body.id as string;
  const newRef = (await stack.pool.query('SELECT key_ref FROM vaults WHERE id = $1', [vaultId])).rows[0].key_ref as string;
  expect(newRef).not.toBe(oldRef);
  const { atKill, killedAt: tKilled } = await killWorkerMidJob(stack, jobId, TOTAL);
  const { rows: split } = await stack.pool.query<{ key_ref: string; n: number }>(
    'SELECT sv.key_ref, count(*)::int AS n FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id WHERE s.vault_id = $1 GROUP BY sv.key_ref', [vaultId]);
  expect(new Map(split.map((r) => [r.key_ref, r.n]))).toEqual(new Map([[newRef, atKill.processed], [oldRef, TOTAL - atKill.processed]]));
  // Reads keep working while no worker runs: half the versions under each key.
  for (const v of [1, VERSIONS]) {
    const r = await call('GET', `${secretUrl('crash/s0')}?version=${v}`, { base, token });
    expect({ status: r.status, value: r.body.value }).toEqual({ status: 200, value: values.get(`crash/s0@${v}`) });
  }

  const done = await completedByNewWorker(stack, `/v1/vaults/${vaultId}/rotate-key/${jobId}`, token);
  const tDone = Date.now();
  expect(done).toEqual(expect.objectContaining({ id: jobId, status: 'completed', total_secrets: TOTAL, processed: TOTAL }));
  expect(done.error).toBeUndefined();

  // Every row under the new key; every version reads back its own value through the api.
  const { rows: after } = await stack.pool.query<{ key_ref: string; n: number }>(
    'SELECT sv.key_ref, count(*)::int AS n FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id WHERE s.vault_id = $1 GROUP BY sv.key_ref', [vaultId]);
  expect(after).toEqual([{ key_ref: newRef, n: TOTAL }]);
  const wrong: unknown[] = [];
  await inParallel([...values.entries()], 16, async ([key, value]) => {
    const [p, v] = key.split('@') as [string, string];
    const r = await call('GET', `${secretUrl(p)}?version=${v}`, { base, token, unchecked: true });
    if (r.status !== 200 || r.body.value !== value || r.body.version !== Number(v)) wrong.push({ key, status: r.status, body: r.body });
  });
  expect(wrong).toEqual([]);
  const { rows: events } = await stack.pool.query(
    "SELECT payload FROM event_outbox WHERE event_type = 'vault.key_rotated' AND payload->>'vault_id' = $1", [vaultId]);
  expect(events).toHaveLength(1);
  expect(events[0].payload).toEqual(expect.objectContaining({ job_id: jobId, versions_rewrapped: TOTAL }));

  // Neither key handle nor any value is in the processes' logs.
  const logs = ['api.log', 'worker.log'].map((f) => fs.readFileSync(path.join(stack.dataDir, f), 'utf8')).join('\n');
  const leaked = [oldRef, newRef, oldRef.slice(oldRef.lastIndexOf(':') + 1), newRef.slice(newRef.lastIndexOf(':') + 1), ...values.values()]
    .filter((needle) => logs.includes(needle));
  expect(leaked).toEqual([]);

  // How the dead worker's work came back: an activity in flight at the kill is retried once it times out.
  const timeouts = await activityRetries(stack.temporal, vaultKeyRotationWorkflowId(jobId));
  const s = (ms: number) => (ms / 1000).toFixed(1);
  process.stderr.write(`vault-key-rotation-crash: ${TOTAL} versions written in ${s(tWritten - t0)} s; SIGKILL at ${atKill.processed}/${TOTAL} processed, ` +
    `${s(tKilled - tWritten)} s after the rotation started; completed ${s(tDone - tKilled)} s after the kill ` +
    `(activity retries in the history: ${timeouts.length ? timeouts.join(', ') : 'none'}); ${s(Date.now() - t0)} s in all\n`);
}, 420_000);
