// Vault key rotation (issue 12 §2): POST /v1/vaults/{id}/rotate-key gives the vault a new KMS key at
// once, and a Temporal workflow re-wraps every version's data key under it in batches, then
// retires the old keys. Every version keeps reading back through the API (during and after the
// job, from the read cache too), writes made during the job end under the new key, the job is
// counted exactly, and neither the key handles nor the values reach Temporal's history or the logs.
// Runs on both KMS backends (package.json test:pkcs11).
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { call, closeDb, db, eventually, joinAsMember, signup, type Account, type Res } from '../helpers/api.ts';
import { agentJwt, auditFor, registerAgent } from '../helpers/agent-fixtures.ts';
import { isProblem, newVault, putOk, regularFilesUnder, rnd, secretUrl } from '../helpers/vault-fixtures.ts';
import { historyText } from '../helpers/history-text.ts';
import { vaultKeyRotationWorkflowId } from '../../domain/key-rotation/client.ts';

const JOB_TIMEOUT_MS = 90_000;

type Job = { id: string; vault_id: string; status: 'pending' | 'running' | 'completed' | 'failed'; total_secrets: number; processed: number; error?: string; started_at?: string; completed_at?: string; created_at: string };
type Written = { path: string; version: number; value: string };

let owner: Account;

beforeAll(async () => {
  owner = await signup('rotate-key');
  // These tests create more secrets than the free tier's cap; billing has no API, so lift the tier directly.
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [owner.orgId]);
});
afterAll(closeDb);

const rotateUrl = (vaultId: string) => `/v1/vaults/${vaultId}/rotate-key`;
const rotate = (vaultId: string, token = owner.token) => call<Job>('POST', rotateUrl(vaultId), { token });
const getJob = (vaultId: string, jobId: string, token = owner.token) => call<Job>('GET', `${rotateUrl(vaultId)}/${jobId}`, { token });

/** Starts a rotation and checks the 202: Location, a pending job counting the vault's versions. */
async function startRotation(vaultId: string, versions: number): Promise<Job> {
  const r = await rotate(vaultId);
  expect(r.status).toBe(202);
  expect(r.headers.get('location')).toBe(`/v1/vaults/${vaultId}/rotate-key/${r.body.id}`);
  expect(r.body).toEqual(expect.objectContaining({ id: expect.any(String), vault_id: vaultId, status: 'pending', total_secrets: versions, processed: 0, created_at: expect.any(String) }));
  expect(r.body.error).toBeUndefined();
  expect(r.body.completed_at).toBeUndefined();
  return r.body;
}

/** Polls the job through the API until it has ended; fails the test if it failed. */
async function untilEnded(vaultId: string, jobId: string): Promise<Job> {
  const job = await eventually(`rotation job ${jobId} ended`, async () => {
    const r = await getJob(vaultId, jobId);
    expect(r.status).toBe(200);
    return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : undefined;
  }, JOB_TIMEOUT_MS);
  expect(job).toEqual(expect.objectContaining({ id: jobId, vault_id: vaultId, status: 'completed', started_at: expect.any(String), completed_at: expect.any(String) }));
  expect(job.error).toBeUndefined();
  return job;
}

/** Writes `secrets` secrets of `versions` versions each (value unique per version), in parallel per version round. */
async function fill(vaultId: string, prefix: string, secrets: number, versions: number): Promise<Written[]> {
  const out: Written[] = [];
  for (let v = 1; v <= versions; v++) {
    await Promise.all(Array.from({ length: secrets }, async (_, i) => {
      const p = `${prefix}/s${i}`;
      const value = rnd(`${prefix}-s${i}-v${v}`);
      const r = await putOk(owner, vaultId, p, value);
      expect(r.body.version).toBe(v);
      out.push({ path: p, version: v, value });
    }));
  }
  return out;
}

const readVersion = (vaultId: string, w: Written, token = owner.token): Promise<Res> =>
  call('GET', `${secretUrl(vaultId, w.path)}?version=${w.version}`, { token });

async function expectAllReadBack(vaultId: string, written: Written[]): Promise<void> {
  for (let i = 0; i < written.length; i += 16) {
    await Promise.all(written.slice(i, i + 16).map(async (w) => {
      const r = await readVersion(vaultId, w);
      expect({ ...w, status: r.status, value: r.body?.value, version: r.body?.version }).toEqual({ ...w, status: 200 });
    }));
  }
}

async function vaultKeyRef(vaultId: string): Promise<string> {
  return (await db().query<{ key_ref: string }>('SELECT key_ref FROM vaults WHERE id = $1', [vaultId])).rows[0]!.key_ref;
}

/** key_ref of every secret version of the vault, with its count. */
async function versionKeyRefs(vaultId: string): Promise<Map<string, number>> {
  const { rows } = await db().query<{ key_ref: string; n: number }>(
    'SELECT sv.key_ref, count(*)::int AS n FROM secret_versions sv JOIN secrets s ON s.id = sv.secret_id WHERE s.vault_id = $1 GROUP BY sv.key_ref', [vaultId]);
  return new Map(rows.map((r) => [r.key_ref, r.n]));
}

/** The part of a key handle that identifies the key: local's sealed key, PKCS#11's object id. */
const distinctive = (ref: string) => ref.slice(ref.lastIndexOf(':') + 1);

describe('a rotation re-wraps every version under the new key', () => {
  let vaultId: string;
  let written: Written[];
  let oldRef: string;
  let newRef: string;
  let job: Job;

  beforeAll(async () => {
    vaultId = await newVault(owner);
    written = await fill(vaultId, 'app', 6, 4); // 24 versions
  });

  test('202 with Location; the job completes with processed == total_secrets == the versions; every version reads back; all rows under the new key', async () => {
    oldRef = await vaultKeyRef(vaultId);
    expect(await versionKeyRefs(vaultId)).toEqual(new Map([[oldRef, written.length]]));

    const started = await startRotation(vaultId, written.length);
    // The vault's key changed at once: new writes use it.
    newRef = await vaultKeyRef(vaultId);
    expect(newRef).not.toBe(oldRef);
    // Both keys come from the backend under test (TEST_KMS_BACKEND=pkcs11: the SoftHSM2 token).
    const backend = process.env.TEST_KMS_BACKEND === 'pkcs11' ? /^pkcs11:[0-9a-f]{32}$/ : /^local:/;
    expect([oldRef, newRef]).toEqual([expect.stringMatching(backend), expect.stringMatching(backend)]);
    job = await untilEnded(vaultId, started.id);
    expect(job.processed).toBe(written.length);
    expect(job.total_secrets).toBe(written.length);
    expect(job.created_at).toBe(started.created_at);
    expect(Date.parse(job.completed_at!)).toBeGreaterThanOrEqual(Date.parse(job.started_at!));

    await expectAllReadBack(vaultId, written);
    // The latest version of each secret reads back too (no ?version).
    for (let i = 0; i < 6; i++) {
      const latest = written.find((w) => w.path === `app/s${i}` && w.version === 4)!;
      const r = await call('GET', secretUrl(vaultId, latest.path), { token: owner.token });
      expect({ status: r.status, value: r.body.value, version: r.body.version }).toEqual({ status: 200, value: latest.value, version: 4 });
    }
    expect(await vaultKeyRef(vaultId)).toBe(newRef);
    expect(await versionKeyRefs(vaultId)).toEqual(new Map([[newRef, written.length]]));
    // The job's status read again is stable.
    expect((await getJob(vaultId, job.id)).body).toEqual(job);
  }, 180_000);

  test('one vault.key_rotated event in the outbox and one vault.rotate_key audit record', async () => {
    const { rows } = await db().query<{ org_id: string; payload: any }>(
      "SELECT org_id, payload FROM event_outbox WHERE event_type = 'vault.key_rotated' AND payload->>'vault_id' = $1", [vaultId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.org_id).toBe(owner.orgId);
    expect(rows[0]!.payload).toEqual(expect.objectContaining({ vault_id: vaultId, job_id: job.id }));
    expect(JSON.stringify(rows[0]!.payload)).not.toContain(distinctive(oldRef));
    expect(JSON.stringify(rows[0]!.payload)).not.toContain(distinctive(newRef));

    const audit = await auditFor(owner, 'vault.rotate_key', vaultId);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toEqual(expect.objectContaining({ action: 'vault.rotate_key', resource_id: vaultId }));
    expect(audit[0].details).toEqual(expect.objectContaining({ job_id: job.id }));
    expect(JSON.stringify(audit[0])).not.toContain(distinctive(oldRef));
    expect(JSON.stringify(audit[0])).not.toContain(distinctive(newRef));
  });

  test('no key handle and no value in the Temporal history (payloads decoded) nor in the stack log', async () => {
    const history = await historyText(vaultKeyRotationWorkflowId(job.id));
    expect(history.status).toBe('COMPLETED');
    // Control: the decoded history shows what the workflow was given (the job id) and returned (the count).
    expect(history.decoded).toContain(job.id);
    const logFile = path.join(process.env.TEST_DATA_DIR!, 'stack.log');
    const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
    for (const [where, text] of [['stored history', history.stored], ['decoded history', history.decoded], ['stack log', log]] as const) {
      for (const needle of [oldRef, newRef, distinctive(oldRef), distinctive(newRef), ...written.map((w) => w.value)]) {
        expect({ where, found: text.includes(needle) ? needle : null }).toEqual({ where, found: null });
      }
    }
  });
});

test('reads and writes in parallel around and during the job all succeed; every write ends under the new key', async () => {
  const vaultId = await newVault(owner);
  const before = await fill(vaultId, 'live', 10, 25); // 250 versions: three batches
  const oldRef = await vaultKeyRef(vaultId);

  const writes: Written[] = [];
  const failures: unknown[] = [];
  let reads = 0;
  let readsWhileRewrapping = 0;
  let state: Job | undefined;
  let ended = false;
  // The loops start before the rotation: some writes look up the old key and land after the job opened.
  const loop = async (n: number) => {
    for (let i = 0; !ended; i++) {
      // A version written before the job (known value), the latest of a secret nobody writes now
      // (served from the read cache after its first read), and a new version, read back at once.
      const old = before[(n * 37 + i * 13) % before.length]!;
      const r1 = await readVersion(vaultId, old);
      if (r1.status !== 200 || r1.body.value !== old.value) failures.push({ read: old, status: r1.status, body: r1.body });
      const latest = before.find((w) => w.path === `live/s${n}` && w.version === 25)!;
      const r2 = await call('GET', secretUrl(vaultId, latest.path), { token: owner.token });
      if (r2.status !== 200 || r2.body.value !== latest.value) failures.push({ read: latest, status: r2.status, body: r2.body });
      reads += 2;
      if (state && state.status !== 'completed' && state.processed < state.total_secrets) readsWhileRewrapping += 2;
      const w = { path: `during/w${n}`, version: i + 1, value: rnd(`during-w${n}-v${i + 1}`) };
      const put = await call('PUT', secretUrl(vaultId, w.path), { token: owner.token, body: { value: w.value } });
      if (put.status !== 201 || put.body.version !== w.version) { failures.push({ write: w, status: put.status, body: put.body }); return; }
      writes.push(w);
      const back = await readVersion(vaultId, w);
      if (back.status !== 200 || back.body.value !== w.value) failures.push({ readBack: w, status: back.status, body: back.body });
      reads++;
    }
  };
  const loops = Array.from({ length: 4 }, (_, n) => loop(n));
  let newRef = '';
  let writtenBeforeRotate = 0;
  const rotation = (async () => {
    try {
      await eventually('writes under way', async () => (writes.length >= 8 ? true : undefined));
      writtenBeforeRotate = writes.length;
      const r = await rotate(vaultId);
      expect(r.status).toBe(202);
      expect(r.headers.get('location')).toBe(`/v1/vaults/${vaultId}/rotate-key/${r.body.id}`);
      // Every version that existed when the job opened is counted (writes under way may add a few).
      expect(r.body.total_secrets).toBeGreaterThanOrEqual(before.length + writtenBeforeRotate);
      state = r.body;
      newRef = await vaultKeyRef(vaultId);
      await eventually(`rotation job ${r.body.id} ended`, async () => {
        const g = await getJob(vaultId, r.body.id);
        expect(g.status).toBe(200);
        state = g.body;
        return state.status === 'completed' || state.status === 'failed' ? state : undefined;
      }, JOB_TIMEOUT_MS);
    } finally {
      ended = true;
    }
  })();
  await Promise.all([rotation, ...loops]);
  expect(failures).toEqual([]);
  expect(newRef).not.toBe(oldRef);
  expect(state).toEqual(expect.objectContaining({ status: 'completed', processed: state!.total_secrets }));
  expect(state!.total_secrets).toBeGreaterThanOrEqual(before.length + writtenBeforeRotate);
  expect(state!.total_secrets).toBeLessThan(before.length + writes.length); // versions written after the job opened were never under the old key
  process.stderr.write(`vault-key-rotation: ${reads} reads (${readsWhileRewrapping} before every version was re-wrapped), ${writes.length} writes (${writtenBeforeRotate} before the rotation); job counted ${state!.total_secrets}\n`);

  // Every version, from before and during the job, reads back and sits under the new key.
  await expectAllReadBack(vaultId, [...before, ...writes]);
  expect(await vaultKeyRef(vaultId)).toBe(newRef);
  expect(await versionKeyRefs(vaultId)).toEqual(new Map([[newRef, before.length + writes.length]]));
}, 180_000);

test('the read cache: a secret read (and cached) before the rotation reads right after it, each read audited once', async () => {
  const vaultId = await newVault(owner);
  const agent = await registerAgent(owner);
  const policy = await call('POST', `/v1/vaults/${vaultId}/policies`, {
    token: owner.token, body: { secret_path_pattern: 'cache/*', principal_type: 'agent', principal_id: agent.id, permissions: ['read'] },
  });
  expect(policy.status).toBe(201);
  const jwt = await agentJwt(agent);
  const v1 = await putOk(owner, vaultId, 'cache/one', 'CACHE-V1');
  const v2 = await putOk(owner, vaultId, 'cache/one', 'CACHE-V2');
  const secretId = v2.body.id as string;
  expect(v1.body.id).toBe(secretId);

  const readAll = async () => {
    for (const token of [owner.token, jwt]) {
      const latest = await call('GET', secretUrl(vaultId, 'cache/one'), { token });
      expect({ status: latest.status, value: latest.body.value, version: latest.body.version }).toEqual({ status: 200, value: 'CACHE-V2', version: 2 });
      const first = await call('GET', `${secretUrl(vaultId, 'cache/one')}?version=1`, { token });
      expect({ status: first.status, value: first.body.value, version: first.body.version }).toEqual({ status: 200, value: 'CACHE-V1', version: 1 });
    }
  };
  await readAll();
  await readAll(); // these come from the read cache
  const oldRef = await vaultKeyRef(vaultId);
  const started = await startRotation(vaultId, 2);
  await untilEnded(vaultId, started.id);
  const newRef = await vaultKeyRef(vaultId);
  expect(newRef).not.toBe(oldRef);
  expect(await versionKeyRefs(vaultId)).toEqual(new Map([[newRef, 2]]));

  const auditedBefore = (await auditFor(owner, 'secret.read', secretId)).length;
  expect(auditedBefore).toBe(8);
  await readAll(); // the cached entries are stale: fresh reads
  await readAll(); // cached again, under the new key
  expect((await auditFor(owner, 'secret.read', secretId)).length).toBe(auditedBefore + 8);
}, 180_000);

describe('who may rotate, and when', () => {
  test('a second rotation while one is open is a 409; the open job still completes; then a new rotation is accepted', async () => {
    const vaultId = await newVault(owner);
    const written = await fill(vaultId, 'busy', 3, 2);
    const first = await startRotation(vaultId, written.length);
    const refAfterFirst = await vaultKeyRef(vaultId);
    const second = await rotate(vaultId);
    isProblem(second, 409);
    expect(await vaultKeyRef(vaultId)).toBe(refAfterFirst); // the refused rotation changed nothing
    const { rows } = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM key_rotation_jobs WHERE vault_id = $1', [vaultId]);
    expect(rows[0]!.n).toBe(1);
    await untilEnded(vaultId, first.id);

    const third = await startRotation(vaultId, written.length);
    expect(third.id).not.toBe(first.id);
    const done = await untilEnded(vaultId, third.id);
    expect(done.processed).toBe(written.length);
    await expectAllReadBack(vaultId, written);
    expect(await versionKeyRefs(vaultId)).toEqual(new Map([[await vaultKeyRef(vaultId), written.length]]));
    expect(await vaultKeyRef(vaultId)).not.toBe(refAfterFirst);
  }, 180_000);

  test('a member is refused with 403, an agent with 403, an unknown vault and an unknown job are 404', async () => {
    const vaultId = await newVault(owner);
    await putOk(owner, vaultId, 'x/y', 'refused-rotation');
    const ref = await vaultKeyRef(vaultId);

    const member = await joinAsMember(owner);
    // A member who cannot see the vault is told it does not exist, as everywhere in the API…
    isProblem(await rotate(vaultId, member.token), 404);
    // …and one who sees it (a policy on it) is refused: only owners and admins rotate.
    const grant = await call('POST', `/v1/vaults/${vaultId}/policies`, {
      token: owner.token, body: { secret_path_pattern: 'x/*', principal_type: 'user', principal_id: member.userId, permissions: ['read', 'write'] },
    });
    expect(grant.status).toBe(201);
    expect((await call('GET', `${secretUrl(vaultId, 'x/y')}?version=1`, { token: member.token })).body.value).toBe('refused-rotation');
    isProblem(await rotate(vaultId, member.token), 403);
    // Not even the vault's creator, when a member.
    const own = await call('POST', '/v1/vaults', { token: member.token, body: { name: rnd('member-vault') } });
    expect(own.status).toBe(201);
    isProblem(await rotate(own.body.id, member.token), 403);
    const agent = await registerAgent(owner);
    const jwt = await agentJwt(agent);
    isProblem(await rotate(vaultId, jwt), 403);
    isProblem(await rotate(randomUUID()), 404);
    // Another organization's vault is not found either.
    const stranger = await signup('rotate-stranger');
    isProblem(await rotate(vaultId, stranger.token), 404);
    // None of those opened a job or changed the key.
    const { rows } = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM key_rotation_jobs WHERE vault_id = $1', [vaultId]);
    expect(rows[0]!.n).toBe(0);
    expect(await vaultKeyRef(vaultId)).toBe(ref);

    isProblem(await getJob(vaultId, randomUUID()), 404);
    const job = await startRotation(vaultId, 1);
    isProblem(await getJob(vaultId, job.id, member.token), 403);
    isProblem(await getJob(vaultId, job.id, jwt), 403);
    isProblem(await getJob(randomUUID(), job.id), 404);
    const other = await newVault(owner);
    isProblem(await getJob(other, job.id), 404); // a job is found under its own vault only
    isProblem(await getJob(vaultId, job.id, stranger.token), 404);
    await untilEnded(vaultId, job.id);
    expect((await call('GET', `${secretUrl(vaultId, 'x/y')}?version=1`, { token: owner.token })).body.value).toBe('refused-rotation');
  }, 180_000);
});

test('a vault deleted during its key rotation: the job ends failed and every key handle is gone', async () => {
  const vaultId = await newVault(owner, rnd('rotate-delete'));
  await fill(vaultId, 'del', 3, 2);
  const job = await startRotation(vaultId, 6);
  expect((await call('DELETE', `/v1/vaults/${vaultId}`, { token: owner.token })).status).toBe(204);
  const ended = await eventually(`rotation job ${job.id} ended`, async () => {
    const r = await db().query('SELECT status, error, new_key_ref, old_key_refs FROM key_rotation_jobs WHERE id = $1', [job.id]);
    return r.rows[0].status === 'pending' || r.rows[0].status === 'running' ? undefined : r.rows[0];
  }, JOB_TIMEOUT_MS);
  expect(ended).toEqual({ status: 'failed', error: expect.stringContaining('vault was deleted'), new_key_ref: null, old_key_refs: [] });
});

test('an account deleted while its vault key rotates: the job goes with it and every key it held is destroyed (on PKCS#11: gone from the token)', async () => {
  const tokenObjects = () => regularFilesUnder(path.join(process.env.TEST_DATA_DIR!, 'softhsm', 'tokens')).filter((f) => f.endsWith('.object'));
  const before = new Set(tokenObjects());
  const leaving = await signup('rotate-leaving');
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [leaving.orgId]);
  const vaultId = await newVault(leaving);
  for (let i = 0; i < 3; i++) await putOk(leaving, vaultId, `gone/s${i}`, rnd('gone'));
  const r = await call<Job>('POST', rotateUrl(vaultId), { token: leaving.token });
  expect(r.status).toBe(202);
  const created = tokenObjects().filter((f) => !before.has(f));
  // The vault's first key and the rotation's new one, in the token (none with the local backend).
  expect(created).toHaveLength(process.env.TEST_KMS_BACKEND === 'pkcs11' ? 2 : 0);
  // Deleted within the job's grace period, so its old key is not yet retired.
  const del = await call('DELETE', '/v1/auth/me', { token: leaving.token, body: { confirmation: 'DELETE MY ACCOUNT', password: leaving.password } });
  expect(del.status).toBe(202);
  await eventually('the account deleted', async () => (await db().query('SELECT 1 FROM users WHERE id = $1', [leaving.userId])).rowCount === 0 ? true : undefined, JOB_TIMEOUT_MS);
  expect((await db().query('SELECT 1 FROM key_rotation_jobs WHERE id = $1', [r.body.id])).rowCount).toBe(0);
  expect(created.filter((f) => fs.existsSync(f))).toEqual([]);
}, 120_000);
