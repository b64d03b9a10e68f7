// A CMEK rotation of 1,000 secret versions survives a worker killed with SIGKILL in the middle of
// the job: a new worker finishes it, every version then opens with the new customer key only (as a
// client decrypts it), the job's count equals the total (no version re-encrypted twice), and the
// keys are nowhere: not in the history, the processes' logs, PostgreSQL's files or the HSM token
// once the job has ended. Runs its own api and worker on the PKCS#11 backend (a SoftHSM2 token of
// its own), so the job key lives in an HSM; vault-key-rotation-crash covers the local backend.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { call, closeDb } from '../helpers/api.ts';
import { filesContaining, inParallel, regularFilesUnder, rnd } from '../helpers/vault-fixtures.ts';
import { cmekRotationWorkflowId } from '../../domain/key-rotation/client.ts';
import { makeDataDir } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';
import { activityRetries, historyText } from '../helpers/history-text.ts';
import { createSoftHsmToken } from '../helpers/softhsm.ts';
import { cmekDecrypt, cmekEncrypt, fingerprintOf } from '../helpers/cmek-client.ts';
import { completedByNewWorker, killWorkerMidJob } from '../helpers/rotation-crash.ts';

const SECRETS = 50;
const VERSIONS = 20;
const TOTAL = SECRETS * VERSIONS;

const hsmDir = makeDataDir('cmek-crash-hsm-');
const hsm = createSoftHsmToken(hsmDir);
const tokenObjects = () => regularFilesUnder(path.join(hsmDir, 'tokens')).filter((f) => f.endsWith('.object'));
const stack = new IsolatedStack('cmekcrash');

beforeAll(() => stack.start({
  ...hsm.env, KMS_BACKEND: 'pkcs11', PKCS11_MODULE: hsm.modulePath, PKCS11_TOKEN_LABEL: hsm.tokenLabel, PKCS11_PIN: hsm.pin,
}), 180_000);

afterAll(async () => {
  await stack.stop();
  await closeDb();
  fs.rmSync(hsmDir, { recursive: true, force: true });
});

test(`SIGKILL of the worker in the middle of a CMEK rotation of ${TOTAL} versions: a new worker completes it, every version opens with the new key only, no version done twice, the keys are nowhere`, async () => {
  const t0 = Date.now();
  const base = stack.apiUrl;
  const signup = await call('POST', '/v1/auth/signup', { base, body: { email: `${stack.namespace}@example.com`, password: 'correct-horse-battery' } });
  expect(signup.status).toBe(200);
  const token = signup.body.access_token as string;
  await stack.pool.query(`UPDATE organizations SET billing_tier = 'business'`); // billing has no API yet
  const vault = await call('POST', '/v1/vaults', { base, token, body: { name: 'cmek-crash' } });
  expect(vault.status).toBe(201);
  const vaultId = vault.body.id as string;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  expect((await call('POST', `/v1/vaults/${vaultId}/cmek`, { base, token, body: { fingerprint: fingerprintOf(oldKey) } })).status).toBe(200);
  const secretUrl = (p: string) => `/v1/vaults/${vaultId}/secrets/${p}`;

  const plains = new Map<string, string>(); // `${path}@${version}` → plaintext
  await inParallel(Array.from({ length: SECRETS }, (_, i) => `crash/s${i}`), SECRETS, async (p) => {
    for (let v = 1; v <= VERSIONS; v++) {
      const plain = rnd(`${p}-v${v}`);
      const r = await call('PUT', secretUrl(p), { base, token, body: { value: cmekEncrypt(oldKey, plain) }, unchecked: true });
      if (r.status !== 201 || r.body.version !== v) throw new Error(`write ${p} v${v}: ${r.status} ${r.text}`);
      plains.set(`${p}@${v}`, plain);
    }
  });
  expect(plains.size).toBe(TOTAL);
  const tWritten = Date.now();

  const objectsBefore = new Set(tokenObjects());
  const started = await call('POST', `/v1/vaults/${vaultId}/cmek-rotate`, {
    base, token, body: { new_fingerprint: fingerprintOf(newKey) }, headers: { 'x-cmek-old-key': oldKey.toString('base64'), 'x-cmek-new-key': newKey.toString('base64') },
  });
  expect(started.status).toBe(202);
  expect(started.body).toEqual(expect.objectContaining({ status: 'pending', total_secrets: TOTAL, processed: 0 }));
  const jobId = started.body.id as string;
  const jobKeyObjects = tokenObjects().filter((f) => !objectsBefore.has(f));
  expect(jobKeyObjects).toHaveLength(1); // the job's key, in the token
  const { atKill, killedAt: tKilled } = await killWorkerMidJob(stack, jobId, TOTAL);
  const split = async () => new Map((await stack.pool.query<{ f: string; n: number }>(
    'SELECT sv.cmek_fingerprint AS f, count(*)::int AS n FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id WHERE s.vault_id = $1 GROUP BY 1', [vaultId])).rows.map((r) => [r.f, r.n]));
  expect(await split()).toEqual(new Map([[fingerprintOf(newKey), atKill.processed], [fingerprintOf(oldKey), TOTAL - atKill.processed]]));
  // Reads keep working with no worker: each value opens with the key its fingerprint names.
  for (const v of [1, VERSIONS]) {
    const r = await call('GET', `${secretUrl('crash/s0')}?version=${v}`, { base, token });
    expect(r.status).toBe(200);
    expect(cmekDecrypt(newKey, r.body.value) ?? cmekDecrypt(oldKey, r.body.value)).toBe(plains.get(`crash/s0@${v}`));
  }

  const done = await completedByNewWorker(stack, `/v1/vaults/${vaultId}/cmek-rotate/${jobId}`, token);
  const tDone = Date.now();
  expect(done).toEqual(expect.objectContaining({ id: jobId, status: 'completed', total_secrets: TOTAL, processed: TOTAL }));
  expect(await split()).toEqual(new Map([[fingerprintOf(newKey), TOTAL]]));

  const wrong: unknown[] = [];
  await inParallel([...plains.entries()], 16, async ([key, plain]) => {
    const [p, v] = key.split('@') as [string, string];
    const r = await call('GET', `${secretUrl(p)}?version=${v}`, { base, token, unchecked: true });
    const opened = r.status === 200 ? cmekDecrypt(newKey, r.body.value) : null;
    if (opened !== plain || r.body.cmek_encrypted !== true || cmekDecrypt(oldKey, r.body.value) !== null) wrong.push({ key, status: r.status, opened });
  });
  expect(wrong).toEqual([]);
  const { rows: events } = await stack.pool.query("SELECT payload FROM event_outbox WHERE event_type = 'vault.cmek_rotated' AND payload->>'vault_id' = $1", [vaultId]);
  expect(events).toHaveLength(1);
  expect(events[0].payload).toEqual(expect.objectContaining({ job_id: jobId, versions_reencrypted: TOTAL }));

  // The keys: gone from the job row and the token; absent from the history, the logs and PostgreSQL's files.
  const { rows: [row] } = await stack.pool.query('SELECT job_key_ref, sealed_old_key, sealed_new_key FROM key_rotation_jobs WHERE id = $1', [jobId]);
  expect(row).toEqual({ job_key_ref: null, sealed_old_key: null, sealed_new_key: null });
  expect(jobKeyObjects.filter((f) => fs.existsSync(f))).toEqual([]);
  const needles = [oldKey, newKey].flatMap((k) => [k.toString('base64'), k.toString('base64url'), k.toString('hex')]);
  const history = await historyText(cmekRotationWorkflowId(jobId), { namespace: stack.namespace, dataDir: stack.dataDir });
  expect(history.decoded).toContain(jobId); // control
  const logs = ['api.log', 'worker.log'].map((f) => fs.readFileSync(path.join(stack.dataDir, f), 'utf8')).join('\n');
  for (const [where, text] of [['stored history', history.stored], ['decoded history', history.decoded], ['logs', logs]] as const) {
    expect({ where, found: needles.filter((n) => text.includes(n)) }).toEqual({ where, found: [] });
  }
  await stack.pool.query('CHECKPOINT');
  const pgDir = path.join(process.env.TEST_DATA_DIR!, 'postgres');
  expect(filesContaining(pgDir, Buffer.from(fingerprintOf(newKey))).length).toBeGreaterThan(0); // control: the scan sees stored text
  for (const needle of [oldKey, newKey, ...needles.map((n) => Buffer.from(n))]) {
    expect({ needle: needle.toString('hex'), files: filesContaining(pgDir, needle) }).toEqual({ needle: needle.toString('hex'), files: [] });
  }

  const retries = await activityRetries(stack.temporal, cmekRotationWorkflowId(jobId));
  const s = (ms: number) => (ms / 1000).toFixed(1);
  process.stderr.write(`cmek-rotation-crash (pkcs11): ${TOTAL} versions written in ${s(tWritten - t0)} s; SIGKILL at ${atKill.processed}/${TOTAL} processed, ` +
    `${s(tKilled - tWritten)} s after the rotation started; completed ${s(tDone - tKilled)} s after the kill ` +
    `(activity retries in the history: ${retries.length ? retries.join(', ') : 'none'}); ${s(Date.now() - t0)} s in all\n`);
}, 420_000);
