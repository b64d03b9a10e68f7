// The backup drill of docs/operations.md ("Backups and restore"), end to end: a local deployment
// (`npm start` on a fresh DATA_DIR) holds secrets with several versions, a share and its audit
// trail; `npm run backup` copies it while it runs and while a client keeps writing; `npm run
// restore` lays the copy into a new DATA_DIR; `npm start` there comes up on it. Every secret and
// version reads back with its value (through the same token: the signing key came along), the
// share opens, the audit chain verifies up to its recorded head, and every secret written during
// the backup is either absent or whole. A damaged backup is refused before anything starts.
import fs from 'node:fs';
import path from 'node:path';
import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { call } from '../helpers/api.ts';
import { freePort, makeDataDir, projectRoot, spawnEntry, stopGroup, waitFor, type StackInfo } from '../helpers/stack.ts';

const run = promisify(execFile);
const dirs: string[] = [];
const launched: ChildProcess[] = [];
afterAll(async () => {
  for (const child of launched) await stopGroup(child);
  // Root keys are in there: nothing stays behind unless asked for.
  if (process.env.KEEP_TEST_DATA !== '1') for (const d of dirs) fs.rmSync(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

/** `npm start` on `dataDir`, as a terminal would run it; resolves once it is up. */
async function startLocal(dataDir: string): Promise<{ child: ChildProcess; info: StackInfo }> {
  const readyFile = path.join(dataDir, 'ready.json');
  const child = spawnEntry('workers/dev.ts', {
    DATA_DIR: dataDir, PORT: String(await freePort()), TEMPORAL_UI: 'off', DEV_READY_FILE: readyFile, SMTP_URL: '', LOG_LEVEL: 'warn',
    RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000',
  }, path.join(dataDir, '..', `${path.basename(dataDir)}.log`));
  launched.push(child);
  const info = await waitFor<StackInfo>('npm start', 180_000,
    () => (fs.existsSync(readyFile) && fs.statSync(readyFile).size > 0 ? JSON.parse(fs.readFileSync(readyFile, 'utf8')) : undefined),
    () => child.exitCode !== null);
  return { child, info };
}

/** `npm run <script> -- args` from the project root, as the docs say. */
const npmRun = (script: string, args: string[], env: Record<string, string> = {}) =>
  run('npm', ['run', '--silent', script, '--', ...args], { cwd: projectRoot, env: { ...process.env, ...env }, maxBuffer: 16 << 20 });

const value = () => randomBytes(12).toString('base64url');

test('back up a running deployment, restore it into a fresh DATA_DIR, start there: everything reads back and verifies', async () => {
  const work = makeDataDir('vault-drill-');
  dirs.push(work);
  const srcDir = path.join(work, 'data');
  fs.mkdirSync(srcDir, { mode: 0o755 });
  const source = await startLocal(srcDir);
  const base = source.info.apiUrl;

  const signup = await call('POST', '/v1/auth/signup', { base, body: { email: 'drill@example.com', password: 'a-long-password' } });
  expect(signup.status).toBe(200);
  const token: string = signup.body.access_token;
  const vault = await call('POST', '/v1/vaults', { base, token, body: { name: 'drill' } });
  expect(vault.status).toBe(201);
  const secretsUrl = (p: string) => `/v1/vaults/${vault.body.id}/secrets/${p}`;
  // Three secrets, three versions each.
  const written = new Map<string, string[]>();
  for (const p of ['db/password', 'api/stripe', 'ssh/deploy']) {
    const versions: string[] = [];
    for (let v = 1; v <= 3; v++) {
      const val = value();
      const put = await call('PUT', secretsUrl(p), { base, token, body: { type: 'password', value: val } });
      expect(put.status).toBe(201);
      expect(put.body.version).toBe(v);
      versions.push(val);
    }
    written.set(p, versions);
  }
  const shared = await call('GET', secretsUrl('db/password'), { base, token });
  const share = await call('POST', `/v1/secrets/${shared.body.id}/share`, {
    base, token, body: { recipient_type: 'anyone_with_link', expires_at: new Date(Date.now() + 86_400_000).toISOString(), max_access_count: 5 },
  });
  expect(share.status).toBe(201);

  // A client keeps writing new versions while the backup runs (a free plan holds 50 secrets).
  let writing = true;
  const during: { path: string; version: number; value: string }[] = [];
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      const val = value();
      const p = `busy/${i % 4}`;
      const r = await call('PUT', secretsUrl(p), { base, token, body: { type: 'password', value: val } });
      expect(r.status).toBe(201);
      during.push({ path: p, version: r.body.version, value: val });
    }
  })();

  // Two writes commit before the backup starts: those must be in it.
  await waitFor('writes before the backup', 30_000, () => (during.length >= 2 ? true : undefined));
  const before = during.slice(0, 2);

  const backupDir = path.join(work, 'backup');
  let backup: { stdout: string; stderr: string };
  try {
    backup = await npmRun('backup', [backupDir], { DATA_DIR: srcDir });
  } finally {
    writing = false;
    await writer;
  }
  expect(backup.stdout.trim()).toBe(backupDir);
  expect(backup.stderr).toMatch(/PostgreSQL online/);
  const manifest = JSON.parse(fs.readFileSync(path.join(backupDir, 'backup-manifest.json'), 'utf8'));
  expect(manifest).toMatchObject({ root_key: 'included', temporal: 'included', kms_backend: 'local', postgres: { mode: 'online' } });
  expect(fs.readFileSync(path.join(backupDir, 'postgres', 'backup_label'), 'utf8')).toMatch(/^START WAL LOCATION: /);
  expect(during.length).toBeGreaterThan(0);

  // A copy with one byte changed is refused, and leaves nothing behind.
  const damaged = path.join(work, 'damaged');
  fs.cpSync(backupDir, damaged, { recursive: true });
  const victim = path.join(damaged, 'postgres', 'global', 'pg_control');
  const bytes = fs.readFileSync(victim);
  bytes[100] = bytes[100]! ^ 0xff;
  fs.writeFileSync(victim, bytes);
  const refused = await npmRun('restore', [damaged, path.join(work, 'not-restored')]).then(() => null, (e: { code: number; stderr: string }) => e);
  expect(refused?.code).toBe(1);
  expect(refused?.stderr).toMatch(/does not match the backup's manifest/);
  expect(fs.existsSync(path.join(work, 'not-restored'))).toBe(false);

  // The source goes away (as after losing its machine); the restore starts from the backup alone.
  await stopGroup(source.child);
  const restoredDir = path.join(work, 'restored');
  await npmRun('restore', [backupDir, restoredDir]);
  const restored = await startLocal(restoredDir);
  const b2 = restored.info.apiUrl;

  for (const [p, versions] of written) {
    for (const [i, val] of versions.entries()) {
      const r = await call('GET', `${secretsUrl(p)}?version=${i + 1}`, { base: b2, token });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ path: p, version: i + 1, value: val });
    }
    expect((await call('GET', secretsUrl(p), { base: b2, token })).body).toMatchObject({ version: 3, value: versions[2] });
  }
  const opened = await call('GET', `/v1/share/${share.body.id}`, { base: b2 });
  expect(opened.status).toBe(200);
  expect(opened.body.value).toBe(written.get('db/password')![2]);

  // Writes during the backup: the restore has each one whole, up to a point, and none after it.
  for (const w of before) expect((await call('GET', `${secretsUrl(w.path)}?version=${w.version}`, { base: b2, token })).body.value).toBe(w.value);
  for (const p of new Set(during.map((d) => d.path))) {
    const latest = await call('GET', secretsUrl(p), { base: b2, token });
    const have: number = latest.status === 200 ? latest.body.version : 0;
    for (const w of during.filter((d) => d.path === p)) {
      const r = await call('GET', `${secretsUrl(p)}?version=${w.version}`, { base: b2, token });
      if (w.version <= have) expect(r.body).toMatchObject({ version: w.version, value: w.value });
      else expect(r.status).toBe(404);
    }
  }

  const verify = await call('GET', '/v1/audit/verify', { base: b2, token });
  expect(verify.status).toBe(200);
  expect(verify.body).toMatchObject({ chain_valid: true, head_matches: true, broken_at_event_id: null });
  // The audit trail of what was done before the backup is there: the secret writes among it.
  const events = await call('GET', '/v1/audit/events?limit=500', { base: b2, token });
  expect(events.body.events.filter((e: { action: string }) => e.action === 'secret.write').length).toBeGreaterThanOrEqual(9);
}, 240_000);
