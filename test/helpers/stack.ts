// Starts the real local stack for a test run: `workers/dev.ts` (embedded PostgreSQL, a Temporal
// dev server, the api and a worker) in a fresh data directory, exactly as `npm start` does.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';

export type StackInfo = { apiUrl: string; databaseUrl: string; temporalAddress: string; pid: number };

export const projectRoot = path.resolve(__dirname, '..', '..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export function makeDataDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755); // embedded PostgreSQL runs as user `postgres` and must reach it
  return dir;
}

/** Runs a project entry point with Node 24, in its own process group, logging to a file. */
export function spawnEntry(entry: string, env: Record<string, string>, logFile: string): ChildProcess {
  const log = fs.openSync(logFile, 'a');
  return spawn('sh', [path.join(projectRoot, 'bin', 'node24'), path.join(projectRoot, entry)], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log],
    detached: true,
  });
}

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined> | T | undefined, died?: () => boolean): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (died?.()) throw new Error(`${what}: the process exited`);
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: not ready within ${timeoutMs / 1000} s`);
}

/** Stops a spawned process group: SIGTERM, then SIGKILL if it lingers. */
export async function stopGroup(child: ChildProcess, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try { process.kill(-child.pid, 'SIGTERM'); } catch { return; }
  const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, graceMs);
  await exited;
  clearTimeout(timer);
}
