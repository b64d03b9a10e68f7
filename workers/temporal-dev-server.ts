// Finds the Temporal CLI (TEMPORAL_CLI_PATH, then PATH, then ./.tools/bin; where Go exists it is
// built once into ./.tools/bin) and runs `temporal server start-dev` as a child process in its own
// process group: a terminal's Ctrl-C reaches the launcher only, which stops it in order.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import type { SearchAttributeType } from '@temporalio/common';
import { freePort } from '../db/free-port.ts';
import { VAULT_SEARCH_ATTRIBUTES } from '../domain/temporal/search-attribute-keys.ts';

/** How `temporal server start-dev --search-attribute` spells each type. */
const CLI_TYPE: Record<SearchAttributeType, string> = {
  TEXT: 'Text', KEYWORD: 'Keyword', INT: 'Int', DOUBLE: 'Double', BOOL: 'Bool', DATETIME: 'Datetime', KEYWORD_LIST: 'KeywordList',
};

const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export function findTemporalCli(projectRoot: string, fromEnv: string | undefined, log: (m: string) => void): string {
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'temporal');
    if (dir && isExecutable(candidate)) return candidate;
  }
  const toolsBin = path.join(projectRoot, '.tools', 'bin');
  const local = path.join(toolsBin, 'temporal');
  if (isExecutable(local)) return local;
  const go = spawnSync('go', ['version'], { stdio: 'ignore' });
  if (go.status === 0) {
    log(`building the Temporal CLI once: go install ${CLI_MODULE} (a few minutes)`);
    const r = spawnSync('go', ['install', CLI_MODULE], { stdio: 'inherit', env: { ...process.env, GOBIN: toolsBin } });
    if (r.status === 0 && isExecutable(local)) return local;
  }
  throw new Error(
    'The Temporal CLI was not found. Do one of:\n' +
    '  - set TEMPORAL_ADDRESS to a running Temporal server (host:port), or\n' +
    '  - set TEMPORAL_CLI_PATH to a `temporal` binary, or put `temporal` on PATH (https://docs.temporal.io/cli), or\n' +
    `  - install Go, then: GOBIN=${toolsBin} go install ${CLI_MODULE}`);
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

export type DevTemporal = { address: string; uiUrl: string | null; stop: () => Promise<void> };
/** `ui: false` runs headless; `uiPort` is where the UI should be (a free port if that one is taken). */
export type DevTemporalOptions = { ui: boolean; uiPort: number };

const STOP_GRACE_MS = 10_000;

export async function startTemporalDevServer(cli: string, dataDir: string, opts: DevTemporalOptions, log: (m: string) => void): Promise<DevTemporal> {
  fs.mkdirSync(dataDir, { recursive: true });
  const dbFile = path.join(dataDir, 'temporal.db');
  const pidFile = path.join(dataDir, 'temporal.pid');
  await stopOrphan(pidFile, dbFile, log);
  const port = await freePort();
  // SQLite in WAL mode with synchronous=NORMAL: a commit survives the dev server's crash (only
  // an OS crash may lose the last ones) and workflow starts run about 2.5× faster than with the
  // default rollback journal, which syncs the disk on every commit.
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--db-filename', dbFile, '--log-level', 'error',
    '--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal',
    // The CLI turns this on for dev servers (not meant for production): every read of a workflow's
    // search attributes re-reads them from SQLite, on its one connection, several times per run.
    // Off, the server caches them; so they are registered here, at start, not later by the worker.
    '--dynamic-config-value', 'system.forceSearchAttributesCacheRefreshOnRead=false',
    ...VAULT_SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=${CLI_TYPE[k.type]}`])];
  let uiUrl: string | null = null;
  if (opts.ui) {
    const uiPort = await uiPortToUse(opts.uiPort, log);
    args.push('--ui-port', String(uiPort));
    uiUrl = `http://127.0.0.1:${uiPort}`;
  } else {
    args.push('--headless');
  }
  const child: ChildProcess = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  if (child.pid) fs.writeFileSync(pidFile, String(child.pid));
  child.stderr?.on('data', (d: Buffer) => log(`temporal: ${d.toString().trim()}`));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  // If the launcher exits without stopping it (an uncaught error, its own deadline), it stops too.
  const onExit = () => { if (running()) child.kill('SIGTERM'); };
  process.once('exit', onExit);
  const address = `127.0.0.1:${port}`;
  await waitForPort(port, 60_000, () => !running());
  return {
    address,
    uiUrl,
    stop: async () => {
      process.removeListener('exit', onExit);
      if (!running()) log(`the Temporal dev server had already stopped before it was asked to (code ${child.exitCode}, signal ${child.signalCode})`);
      else {
        child.kill('SIGTERM');
        const late = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(late);
      }
      fs.rmSync(pidFile, { force: true });
    },
  };
}

/**
 * The UI stays on one port from start to start, so an operator's bookmark (and the codec settings
 * the UI keeps per origin in the browser) keeps working. Only if something else holds it does the
 * UI move, and the log says so loudly.
 */
async function uiPortToUse(wanted: number, log: (m: string) => void): Promise<number> {
  if (await portIsFree(wanted)) return wanted;
  const port = await freePort();
  log(`WARNING: port ${wanted} for the Temporal UI is taken by another program; the UI is on port ${port} this time.`);
  log(`WARNING: bookmarks of http://127.0.0.1:${wanted} (or localhost:${wanted}) do not reach it. Free port ${wanted}, or set TEMPORAL_UI_PORT to another fixed port.`);
  return port;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A launcher that was killed hard (SIGKILL reaches no handler) leaves the dev server running on
 * our database file: stop it before starting another. The pid is ours only if its command line
 * still names that file (a pid can be reused); without /proc (macOS) it is left alone.
 */
async function stopOrphan(pidFile: string, dbFile: string, log: (m: string) => void): Promise<void> {
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  const isOurs = () => {
    try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(dbFile); } catch { return false; }
  };
  if (Number.isInteger(pid) && pid > 0 && isOurs()) {
    log(`stopping an orphaned Temporal dev server (pid ${pid}) left by an earlier run`);
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 100 && isOurs(); i++) await new Promise((r) => setTimeout(r, 100));
    if (isOurs()) process.kill(pid, 'SIGKILL');
  }
  fs.rmSync(pidFile, { force: true });
}

async function waitForPort(port: number, timeoutMs: number, died: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (died()) throw new Error('the Temporal dev server exited during start');
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the Temporal dev server did not open port ${port} within ${timeoutMs / 1000} s`);
}
