// Customer-managed keys (issue 12 §1): enabling and disabling CMEK on a vault (owners and admins,
// Business plan and up), versions written while it is on read back with `cmek_encrypted: true`,
// and the server-assisted rotation: 202 + Location, a Temporal job that re-encrypts every version
// from the old customer key to the new one (checked by decrypting as a client would, with WebCrypto
// in the published clients' format), refusals before anything starts, and the keys absent from
// the history, the logs, the job row and PostgreSQL's files. Runs on both KMS backends.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { call, closeDb, db, eventually, joinAsMember, signup, type Account } from '../helpers/api.ts';
import { agentJwt, auditFor, registerAgent } from '../helpers/agent-fixtures.ts';
import { filesContaining, regularFilesUnder, isProblem, newVault, putOk, rnd, secretUrl } from '../helpers/vault-fixtures.ts';
import { historyText } from '../helpers/history-text.ts';
import { fingerprintOf } from '../helpers/cmek-client.ts';
import { cmekRotationWorkflowId } from '../../domain/key-rotation/client.ts';

const JOB_TIMEOUT_MS = 90_000;

type Job = { id: string; vault_id: string; status: string; total_secrets: number; processed: number; error?: string; old_fingerprint?: string; new_fingerprint?: string; started_at?: string; completed_at?: string; created_at: string };
type Written = { path: string; version: number; plain: string };

// The client side, as the published SDK does it: AES-256-GCM via WebCrypto, 0x01 | iv | ciphertext+tag, base64.
async function clientEncrypt(key: Buffer, plain: string): Promise<string> {
  const k = await crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['encrypt']);
  const iv = randomBytes(12);
  const body = Buffer.from(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, k, Buffer.from(plain)));
  return Buffer.concat([Buffer.from([1]), iv, body]).toString('base64');
}
async function clientDecrypt(key: Buffer, value: string): Promise<string | null> {
  const blob = Buffer.from(value, 'base64');
  if (blob[0] !== 1) return null;
  const k = await crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['decrypt']);
  try {
    return Buffer.from(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: blob.subarray(1, 13) }, k, blob.subarray(13))).toString();
  } catch {
    return null;
  }
}

let owner: Account;
beforeAll(async () => {
  owner = await signup('cmek');
  // Billing has no API yet: put the organization on the Business plan directly.
  await db().query("UPDATE organizations SET billing_tier = 'business' WHERE id = $1", [owner.orgId]);
});
afterAll(closeDb);

const cmekUrl = (vaultId: string) => `/v1/vaults/${vaultId}/cmek`;
const rotateUrl = (vaultId: string) => `/v1/vaults/${vaultId}/cmek-rotate`;
const enable = (vaultId: string, fingerprint: string, token = owner.token) => call('POST', cmekUrl(vaultId), { token, body: { fingerprint } });
const rotate = (vaultId: string, keys: { old?: string; new?: string }, newFingerprint: string, token = owner.token) => call<Job>('POST', rotateUrl(vaultId), {
  token, body: { new_fingerprint: newFingerprint },
  headers: { ...(keys.old !== undefined ? { 'x-cmek-old-key': keys.old } : {}), ...(keys.new !== undefined ? { 'x-cmek-new-key': keys.new } : {}) },
});
const getJob = (vaultId: string, jobId: string, token = owner.token) => call<Job>('GET', `${rotateUrl(vaultId)}/${jobId}`, { token });
const b64 = (k: Buffer) => k.toString('base64');

async function untilEnded(vaultId: string, jobId: string): Promise<Job> {
  return eventually(`CMEK job ${jobId} ended`, async () => {
    const r = await getJob(vaultId, jobId);
    expect(r.status).toBe(200);
    return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : undefined;
  }, JOB_TIMEOUT_MS);
}

/** A vault with CMEK on under `key`, and `secrets` × `versions` client-encrypted values. */
async function cmekVault(key: Buffer, secrets: number, versions: number, prefix = 'c'): Promise<{ vaultId: string; written: Written[] }> {
  const vaultId = await newVault(owner);
  expect((await enable(vaultId, fingerprintOf(key))).status).toBe(200);
  const written: Written[] = [];
  for (let v = 1; v <= versions; v++) {
    await Promise.all(Array.from({ length: secrets }, async (_, i) => {
      const w = { path: `${prefix}/s${i}`, version: v, plain: rnd(`plain-${prefix}-${i}-${v}`) };
      const r = await putOk(owner, vaultId, w.path, await clientEncrypt(key, w.plain));
      expect(r.body.version).toBe(v);
      written.push(w);
    }));
  }
  return { vaultId, written };
}

/** The SoftHSM2 token's object files (none with the local backend). */
const tokenObjects = () => regularFilesUnder(path.join(process.env.TEST_DATA_DIR!, 'softhsm', 'tokens')).filter((f) => f.endsWith('.object'));

const readVersion = (vaultId: string, w: { path: string; version: number }) => call('GET', `${secretUrl(vaultId, w.path)}?version=${w.version}`, { token: owner.token });

async function jobRow(jobId: string) {
  return (await db().query('SELECT status, job_key_ref, sealed_old_key, sealed_new_key FROM key_rotation_jobs WHERE id = $1', [jobId])).rows[0];
}

describe('enabling and disabling CMEK', () => {
  test('Business plan: enable shows cmek_enabled and the fingerprint (stored lower-case); versions written while on read back cmek_encrypted; disable affects new writes only', async () => {
    const vaultId = await newVault(owner);
    const before = await putOk(owner, vaultId, 'plain/one', 'not-cmek');
    const key = randomBytes(32);
    const fp = fingerprintOf(key);
    const on = await enable(vaultId, fp.toUpperCase());
    expect(on.status).toBe(200);
    expect(on.body).toEqual(expect.objectContaining({ id: vaultId, cmek_enabled: true, cmek_fingerprint: fp }));
    expect((await call('GET', `/v1/vaults/${vaultId}`, { token: owner.token })).body).toEqual(expect.objectContaining({ cmek_enabled: true, cmek_fingerprint: fp }));

    const encrypted = await clientEncrypt(key, 'the-real-value');
    await putOk(owner, vaultId, 'enc/one', encrypted);
    const read = await call('GET', secretUrl(vaultId, 'enc/one'), { token: owner.token });
    expect({ status: read.status, value: read.body.value, cmek: read.body.cmek_encrypted }).toEqual({ status: 200, value: encrypted, cmek: true });
    expect(await clientDecrypt(key, read.body.value)).toBe('the-real-value');
    // A version written before CMEK was on is not marked; a server-generated value never is.
    expect((await call('GET', secretUrl(vaultId, 'plain/one'), { token: owner.token })).body).toEqual(expect.objectContaining({ value: 'not-cmek', cmek_encrypted: false }));
    expect(before.status).toBe(201);
    const generated = await call('POST', `/v1/vaults/${vaultId}/secret-rotate/enc/one`, { token: owner.token, body: {} });
    expect(generated.status).toBe(201);
    expect((await call('GET', secretUrl(vaultId, 'enc/one'), { token: owner.token })).body.cmek_encrypted).toBe(false);
    expect((await readVersion(vaultId, { path: 'enc/one', version: 1 })).body.cmek_encrypted).toBe(true);

    const off = await call('DELETE', cmekUrl(vaultId), { token: owner.token });
    expect(off.status).toBe(200);
    expect(off.body.cmek_enabled).toBe(false);
    expect(off.body.cmek_fingerprint).toBeUndefined();
    await putOk(owner, vaultId, 'after/off', 'plain-again');
    expect((await call('GET', secretUrl(vaultId, 'after/off'), { token: owner.token })).body.cmek_encrypted).toBe(false);
    expect((await readVersion(vaultId, { path: 'enc/one', version: 1 })).body).toEqual(expect.objectContaining({ value: encrypted, cmek_encrypted: true }));

    const audit = await auditFor(owner, 'vault.cmek_enable', vaultId);
    expect(audit).toHaveLength(1);
    expect(audit[0].details).toEqual(expect.objectContaining({ fingerprint: fp }));
    expect(await auditFor(owner, 'vault.cmek_disable', vaultId)).toHaveLength(1);
  });

  test('refusals: a plan without CMEK (403), a bad fingerprint (400), a member and an agent (403), unknown vault (404); none changes the vault', async () => {
    const teamOwner = await signup('cmek-team');
    await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [teamOwner.orgId]);
    const teamVault = await newVault(teamOwner);
    isProblem(await enable(teamVault, fingerprintOf(randomBytes(32)), teamOwner.token), 403, 'plan_feature_unavailable');
    const freeOwner = await signup('cmek-free');
    isProblem(await enable(await newVault(freeOwner), fingerprintOf(randomBytes(32)), freeOwner.token), 403, 'plan_feature_unavailable');

    const vaultId = await newVault(owner);
    for (const bad of ['', 'abc', 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), 42, null]) {
      const r = await call('POST', cmekUrl(vaultId), { token: owner.token, body: { fingerprint: bad } });
      isProblem(r, 400);
      expect(r.text).toContain('fingerprint');
    }
    isProblem(await call('POST', cmekUrl(vaultId), { token: owner.token, body: {} }), 400);
    const member = await joinAsMember(owner);
    const grant = await call('POST', `/v1/vaults/${vaultId}/policies`, {
      token: owner.token, body: { secret_path_pattern: '**', principal_type: 'user', principal_id: member.userId, permissions: ['read', 'write'] },
    });
    expect(grant.status).toBe(201);
    isProblem(await enable(vaultId, fingerprintOf(randomBytes(32)), member.token), 403);
    isProblem(await call('DELETE', cmekUrl(vaultId), { token: member.token }), 403);
    isProblem(await enable(vaultId, fingerprintOf(randomBytes(32)), await agentJwt(await registerAgent(owner))), 403);
    isProblem(await enable(randomUUID(), fingerprintOf(randomBytes(32))), 404);
    const { rows } = await db().query('SELECT cmek_enabled, cmek_fingerprint FROM vaults WHERE id = ANY($1)', [[vaultId, teamVault]]);
    expect(rows).toEqual([{ cmek_enabled: false, cmek_fingerprint: null }, { cmek_enabled: false, cmek_fingerprint: null }]);
  });
});

describe('a CMEK rotation re-encrypts every version under the new customer key', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  let vaultId: string;
  let written: Written[];
  let job: Job;
  let plainValue: string;

  beforeAll(async () => {
    ({ vaultId, written } = await cmekVault(oldKey, 10, 25)); // 250 versions: three batches
    plainValue = rnd('plain-before-cmek');
  });

  test('202 with Location and the job; reads during the job all succeed (each value opens with one of the keys); the job completes with processed == total; every version now opens with the new key only', async () => {
    // A version written before CMEK was turned off stays as it was.
    expect((await call('DELETE', cmekUrl(vaultId), { token: owner.token })).status).toBe(200);
    await putOk(owner, vaultId, 'plain/kept', plainValue);
    expect((await enable(vaultId, fingerprintOf(oldKey))).status).toBe(200);

    const tokenObjectsBefore = new Set(tokenObjects());
    const r = await rotate(vaultId, { old: b64(oldKey), new: b64(newKey) }, fingerprintOf(newKey));
    expect(r.status).toBe(202);
    expect(r.headers.get('location')).toBe(`/v1/vaults/${vaultId}/cmek-rotate/${r.body.id}`);
    expect(r.body).toEqual(expect.objectContaining({
      id: expect.any(String), vault_id: vaultId, status: 'pending', total_secrets: written.length, processed: 0,
      old_fingerprint: fingerprintOf(oldKey), new_fingerprint: fingerprintOf(newKey), created_at: expect.any(String),
    }));
    expect(JSON.stringify(r.body)).not.toContain(b64(oldKey));
    // The job's own key is in the backend under test while the job runs (and destroyed when it ends: see below).
    const { job_key_ref: jobKeyRef } = await jobRow(r.body.id);
    expect(jobKeyRef).toMatch(process.env.TEST_KMS_BACKEND === 'pkcs11' ? /^pkcs11:[0-9a-f]{32}$/ : /^local:/);
    // SoftHSM2 keeps each token object in a file of its own (attributes encrypted): the job added one.
    const jobKeyFiles = tokenObjects().filter((f) => !tokenObjectsBefore.has(f));
    if (process.env.TEST_KMS_BACKEND === 'pkcs11') expect(jobKeyFiles).toHaveLength(1);
    // New writes are marked with the new key from now on.
    expect((await call('GET', `/v1/vaults/${vaultId}`, { token: owner.token })).body.cmek_fingerprint).toBe(fingerprintOf(newKey));

    const failures: unknown[] = [];
    let reads = 0;
    let ended = false;
    const reader = async (n: number) => {
      for (let i = 0; !ended; i++) {
        const w = written[(n * 31 + i * 7) % written.length]!;
        const got = await readVersion(vaultId, w);
        const plain = got.status === 200 ? (await clientDecrypt(newKey, got.body.value)) ?? (await clientDecrypt(oldKey, got.body.value)) : null;
        if (got.status !== 200 || got.body.cmek_encrypted !== true || plain !== w.plain) failures.push({ w, status: got.status, body: got.body });
        reads++;
      }
    };
    const readers = Array.from({ length: 4 }, (_, n) => reader(n));
    try {
      job = await untilEnded(vaultId, r.body.id);
    } finally {
      ended = true;
      await Promise.all(readers);
    }
    expect(failures).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    expect(job).toEqual(expect.objectContaining({ status: 'completed', total_secrets: written.length, processed: written.length, started_at: expect.any(String), completed_at: expect.any(String) }));
    expect(job.error).toBeUndefined();
    // …and gone from the token once the job has ended.
    expect(jobKeyFiles.filter((f) => fs.existsSync(f))).toEqual([]);

    for (const w of written) {
      const got = await readVersion(vaultId, w);
      expect({ status: got.status, cmek: got.body.cmek_encrypted, plain: await clientDecrypt(newKey, got.body.value), old: await clientDecrypt(oldKey, got.body.value) })
        .toEqual({ status: 200, cmek: true, plain: w.plain, old: null });
    }
    expect((await call('GET', secretUrl(vaultId, 'plain/kept'), { token: owner.token })).body).toEqual(expect.objectContaining({ value: plainValue, cmek_encrypted: false }));
    const { rows } = await db().query<{ f: string | null; n: number }>(
      'SELECT sv.cmek_fingerprint AS f, count(*)::int AS n FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id WHERE s.vault_id = $1 GROUP BY 1 ORDER BY 2', [vaultId]);
    expect(rows).toEqual([{ f: null, n: 1 }, { f: fingerprintOf(newKey), n: written.length }]);
  }, 180_000);

  test('the job row keeps no key, sealed or not; one vault.cmek_rotated event; the audit record has the fingerprints only', async () => {
    expect(await jobRow(job.id)).toEqual({ status: 'completed', job_key_ref: null, sealed_old_key: null, sealed_new_key: null });
    const { rows } = await db().query("SELECT payload FROM event_outbox WHERE event_type = 'vault.cmek_rotated' AND payload->>'vault_id' = $1", [vaultId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].payload).toEqual(expect.objectContaining({ job_id: job.id, old_fingerprint: fingerprintOf(oldKey), new_fingerprint: fingerprintOf(newKey), versions_reencrypted: written.length }));
    const audit = await auditFor(owner, 'vault.cmek_rotate', vaultId);
    expect(audit).toHaveLength(1);
    expect(audit[0].details).toEqual(expect.objectContaining({ job_id: job.id, old_fingerprint: fingerprintOf(oldKey), new_fingerprint: fingerprintOf(newKey) }));
  });

  test('neither key (raw, base64, hex) nor a plaintext is in the Temporal history, the stack log or PostgreSQL files', async () => {
    const history = await historyText(cmekRotationWorkflowId(job.id));
    expect(history.status).toBe('COMPLETED');
    expect(history.decoded).toContain(job.id); // control: the decoded history is readable
    const logFile = path.join(process.env.TEST_DATA_DIR!, 'stack.log');
    const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
    const needles = [oldKey, newKey].flatMap((k) => [b64(k), k.toString('base64url'), k.toString('hex')]);
    for (const [where, text] of [['stored history', history.stored], ['decoded history', history.decoded], ['stack log', log]] as const) {
      for (const needle of [...needles, ...written.slice(0, 20).map((w) => w.plain)]) {
        expect({ where, found: text.includes(needle) ? needle : null }).toEqual({ where, found: null });
      }
    }
    await db().query('CHECKPOINT');
    const pgDir = path.join(process.env.TEST_DATA_DIR!, 'postgres');
    // Control: the scan sees what is stored in the clear (the new key's fingerprint on the vault row).
    expect(filesContaining(pgDir, Buffer.from(fingerprintOf(newKey))).length).toBeGreaterThan(0);
    for (const needle of [oldKey, newKey, ...needles.map((n) => Buffer.from(n))]) {
      expect({ needle: needle.toString('hex'), files: filesContaining(pgDir, needle) }).toEqual({ needle: needle.toString('hex'), files: [] });
    }
  }, 120_000);
});

describe('refused before it starts, and one at a time', () => {
  test('wrong old key, missing or malformed keys, a new key that does not match its fingerprint, the same key twice: 400, no job, the vault unchanged', async () => {
    const key = randomBytes(32);
    const { vaultId } = await cmekVault(key, 2, 1, 'r');
    const next = randomBytes(32);
    const cases: [string, { old?: string; new?: string }, string][] = [
      ['wrong old key', { old: b64(randomBytes(32)), new: b64(next) }, fingerprintOf(next)],
      ['no old key', { new: b64(next) }, fingerprintOf(next)],
      ['no new key', { old: b64(key) }, fingerprintOf(next)],
      ['short old key', { old: b64(randomBytes(16)), new: b64(next) }, fingerprintOf(next)],
      ['not base64', { old: '!!!not-base64!!!', new: b64(next) }, fingerprintOf(next)],
      ['new key does not match new_fingerprint', { old: b64(key), new: b64(next) }, fingerprintOf(randomBytes(32))],
      ['the same key', { old: b64(key), new: b64(key) }, fingerprintOf(key)],
    ];
    for (const [what, keys, fp] of cases) {
      const r = await rotate(vaultId, keys, fp);
      expect({ what, status: r.status }).toEqual({ what, status: 400 });
      for (const k of [keys.old, keys.new]) if (k) expect(r.text).not.toContain(k);
    }
    isProblem(await rotate(vaultId, { old: b64(key), new: b64(next) }, 'not-a-fingerprint'), 400);
    const { rows } = await db().query('SELECT count(*)::int AS n FROM key_rotation_jobs WHERE vault_id = $1', [vaultId]);
    expect(rows[0].n).toBe(0);
    expect((await call('GET', `/v1/vaults/${vaultId}`, { token: owner.token })).body.cmek_fingerprint).toBe(fingerprintOf(key));
  });

  test('a second rotation while one runs is a 409 (and CMEK settings cannot change meanwhile); the first completes; member and agent 403, unknown job 404', async () => {
    const key = randomBytes(32);
    const { vaultId, written } = await cmekVault(key, 3, 2, 'q');
    const next = randomBytes(32);
    const member = await joinAsMember(owner);
    isProblem(await rotate(vaultId, { old: b64(key), new: b64(next) }, fingerprintOf(next), member.token), 404); // cannot see the vault
    const first = await rotate(vaultId, { old: b64(key), new: b64(next) }, fingerprintOf(next));
    expect(first.status).toBe(202);
    // The job stays open through its grace period after the last batch, so these land while it runs.
    const third = randomBytes(32);
    isProblem(await rotate(vaultId, { old: b64(next), new: b64(third) }, fingerprintOf(third)), 409);
    isProblem(await call('POST', `/v1/vaults/${vaultId}/rotate-key`, { token: owner.token }), 409);
    isProblem(await enable(vaultId, fingerprintOf(third)), 409);
    isProblem(await call('DELETE', cmekUrl(vaultId), { token: owner.token }), 409);
    isProblem(await getJob(vaultId, first.body.id, await agentJwt(await registerAgent(owner))), 403);
    isProblem(await getJob(vaultId, randomUUID()), 404);
    isProblem(await getJob(await newVault(owner), first.body.id), 404);
    const done = await untilEnded(vaultId, first.body.id);
    expect(done).toEqual(expect.objectContaining({ status: 'completed', processed: written.length }));
    for (const w of written) expect(await clientDecrypt(next, (await readVersion(vaultId, w)).body.value)).toBe(w.plain);
  }, 120_000);
});

describe('failures end the job and destroy its keys', () => {
  test('a value marked CMEK that does not open with the old key: the job fails naming it, that version is left as it was, the keys are gone', async () => {
    const key = randomBytes(32);
    const { vaultId } = await cmekVault(key, 2, 1, 'f');
    await putOk(owner, vaultId, 'f/not-encrypted', 'a client forgot to encrypt this');
    const next = randomBytes(32);
    const r = await rotate(vaultId, { old: b64(key), new: b64(next) }, fingerprintOf(next));
    expect(r.status).toBe(202);
    expect(r.body.total_secrets).toBe(3);
    const ended = await untilEnded(vaultId, r.body.id);
    expect(ended.status).toBe('failed');
    expect(ended.error).toContain('"f/not-encrypted"');
    expect(ended.error).not.toContain(b64(key));
    expect(await jobRow(r.body.id)).toEqual({ status: 'failed', job_key_ref: null, sealed_old_key: null, sealed_new_key: null });
    expect((await call('GET', secretUrl(vaultId, 'f/not-encrypted'), { token: owner.token })).body.value).toBe('a client forgot to encrypt this');
  }, 120_000);

  test('a vault deleted during its CMEK rotation: the job ends failed and its keys are gone', async () => {
    const key = randomBytes(32);
    const { vaultId } = await cmekVault(key, 3, 2, 'd');
    const next = randomBytes(32);
    const r = await rotate(vaultId, { old: b64(key), new: b64(next) }, fingerprintOf(next));
    expect(r.status).toBe(202);
    expect((await call('DELETE', `/v1/vaults/${vaultId}`, { token: owner.token })).status).toBe(204);
    const row = await eventually('the job ended', async () => {
      const j = await jobRow(r.body.id);
      return j.status === 'pending' || j.status === 'running' ? undefined : j;
    }, JOB_TIMEOUT_MS);
    expect(row).toEqual({ status: 'failed', job_key_ref: null, sealed_old_key: null, sealed_new_key: null });
  }, 120_000);
});
