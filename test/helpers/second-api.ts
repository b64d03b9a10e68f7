// Another api process on the test stack's database, Temporal and data directory (so the same root
// key, tokens and rows), with settings of its own: for tests that need an env the shared api was
// not started with (client addresses from X-Forwarded-For, Google sign-in on or off …).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { freePort, spawnEntry, stopGroup, waitFor } from './stack.ts';

export type SecondApi = { url: string; log: string; child: ChildProcess };

/** Starts it (its log at `logDir/<name>.log`) and waits until it answers /v1/health. */
export async function startSecondApi(name: string, logDir: string, env: Record<string, string>): Promise<SecondApi> {
  const log = path.join(logDir, `${name}.log`);
  const port = await freePort();
  const child = spawnEntry('workers/api.ts', {
    DATABASE_URL: process.env.TEST_DATABASE_URL!,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
    PORT: String(port),
    DATA_DIR: process.env.TEST_DATA_DIR!,
    RATE_LIMIT_RPS: '100000',
    RATE_LIMIT_BURST: '100000',
    ...env,
  }, log);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${name} api`, 60_000, async () => {
      const r = await fetch(`${url}/v1/health`).catch(() => undefined);
      return r?.status === 200 ? true : undefined;
    }, () => child.exitCode !== null);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- ${name} api log ---\n${fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-4000) : ''}`);
  }
  return { url, log, child };
}

/**
 * A second api for one test file: started before its tests, stopped after them (its logs go with
 * it). Read `url` (and `log`, its log file) inside tests. `env` may be a function, called when the api starts: after the
 * file's earlier beforeAll hooks, so it can name something they set up (a port, an origin).
 */
export function secondApiForFile(name: string, env: Record<string, string> | (() => Record<string, string>)): { readonly url: string; readonly log: string } {
  let api: SecondApi | undefined;
  let logDir = '';
  beforeAll(async () => {
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), `vault-${name}-api-`));
    api = await startSecondApi(name, logDir, typeof env === 'function' ? env() : env);
  }, 120_000);
  afterAll(async () => {
    if (api) await stopGroup(api.child);
    if (logDir) fs.rmSync(logDir, { recursive: true, force: true });
  });
  return { get url() { return api!.url; }, get log() { return api!.log; } };
}
