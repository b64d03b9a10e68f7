// A restart under another root key (a new ROOT_KEY, a lost or regenerated DATA_DIR/root.key) must
// stop at start with a plain error, not start and then fail every token, secret read and webhook.
// The api and the worker both check it against the stack's database, whose keys were sealed under
// the stack's own root key (DATA_DIR/root.key); the stack's other api processes prove that key passes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnEntry, stopGroup, waitFor } from '../helpers/stack.ts';

let logDir: string;
beforeAll(() => { logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-root-key-')); });
afterAll(() => fs.rmSync(logDir, { recursive: true, force: true }));

/** Runs an entry point under `rootKey` until it exits; its exit code and log. */
async function runUnder(entry: string, rootKey: Record<string, string>): Promise<{ code: number | null; log: string }> {
  const log = path.join(logDir, `${path.basename(entry)}-${randomBytes(3).toString('hex')}.log`);
  const child = spawnEntry(entry, {
    DATABASE_URL: process.env.TEST_DATABASE_URL!, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
    PORT: '0', API_PROCESSES: '1', KMS_BACKEND: 'local', ...rootKey,
  }, log);
  try {
    await waitFor(`${entry} exits`, 60_000, () => (child.exitCode !== null || child.signalCode !== null ? true : undefined));
  } finally {
    await stopGroup(child);
  }
  return { code: child.exitCode, log: fs.readFileSync(log, 'utf8') };
}

test.each(['workers/api.ts', 'workers/worker.ts'])('%s under another ROOT_KEY refuses to start and says why', async (entry) => {
  const { code, log } = await runUnder(entry, { ROOT_KEY: randomBytes(32).toString('base64') });
  expect(code).toBe(1);
  expect(log).toContain('The root key does not match this database');
  expect(log).not.toMatch(/\n\s+at /); // a plain message, not a stack trace
}, 90_000);

test('a regenerated DATA_DIR/root.key is refused the same way', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-new-root-key-'));
  try {
    const { code, log } = await runUnder('workers/api.ts', { DATA_DIR: dataDir, ROOT_KEY: '' });
    expect(code).toBe(1);
    expect(log).toContain('The root key does not match this database');
    expect(fs.existsSync(path.join(dataDir, 'root.key'))).toBe(true); // the new key it made, and was refused with
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 90_000);
