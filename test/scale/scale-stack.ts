// The scale check's system: one embedded PostgreSQL, one Temporal dev server (the launchers
// `npm start` uses), and api and worker processes of the production entry points, each in its
// own process group with its own log, all sharing one database, namespace and root key.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type LocalPostgres } from '../../db/embedded-postgres.ts';
import { freePort } from '../../db/free-port.ts';
import { ADVISORY_LOCKS } from '../../db/advisory-locks.ts';
import { findTemporalCli, startTemporalDevServer, type DevTemporal } from '../../workers/temporal-dev-server.ts';

export type Proc = { name: string; entry: string; child: ChildProcess; log: string; port?: number };

/** Polls `probe` until it answers, or fails after `timeoutMs` saying what it waited for. */
export async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined> | T | undefined, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export class ScaleStack {
  readonly dir: string;
  readonly root: string;
  readonly say: (m: string) => void;
  env: Record<string, string> = {};
  pool!: pg.Pool;
  private postgres: LocalPostgres | undefined;
  private temporal: DevTemporal | undefined;
  readonly procs: Proc[] = [];

  constructor(root: string, dir: string, say: (m: string) => void) {
    this.root = root;
    this.dir = dir;
    this.say = say;
  }

  async start(env: Record<string, string>): Promise<void> {
    this.postgres = await startEmbeddedPostgres(path.join(this.dir, 'pg'), this.say);
    const cli = findTemporalCli(this.root, process.env.TEMPORAL_CLI_PATH, this.say);
    this.temporal = await startTemporalDevServer(cli, path.join(this.dir, 'temporal'), { ui: false, uiPort: 0 }, this.say);
    this.pool = new pg.Pool({ connectionString: this.postgres.url, max: 4 });
    this.pool.on('error', () => {});
    this.env = {
      DATABASE_URL: this.postgres.url, TEMPORAL_ADDRESS: this.temporal.address, DATA_DIR: path.join(this.dir, 'keys'),
      KMS_BACKEND: 'local', API_PROCESSES: '1', LOG_LEVEL: 'warn', ...env,
    };
  }

  /** Starts `entry` (workers/api.ts or workers/worker.ts); an api on `port` (a free one if absent). */
  async spawn(name: string, entry: string, port?: number): Promise<Proc> {
    const log = path.join(this.dir, `${name}.log`);
    const fd = fs.openSync(log, 'a');
    const p: Proc = { name, entry, log, port: entry.endsWith('api.ts') ? (port ?? await freePort()) : undefined, child: undefined! };
    p.child = spawn('sh', [path.join(this.root, 'bin', 'node24'), path.join(this.root, entry)], {
      cwd: this.root, detached: true, stdio: ['ignore', fd, fd],
      env: { ...process.env, ...this.env, ...(p.port ? { PORT: String(p.port) } : {}) },
    });
    fs.closeSync(fd);
    this.procs.push(p);
    return p;
  }

  async apiHealthy(p: Proc): Promise<void> {
    await until(`${p.name} healthy`, 120_000, async () => {
      if (p.child.exitCode !== null) throw new Error(`${p.name} exited:\n${this.tail(p)}`);
      const r = await fetch(`http://127.0.0.1:${p.port}/v1/health`).catch(() => undefined);
      return r?.ok ? true : undefined;
    }, 250);
  }

  /** The backend pid holding the outbox dispatcher's lock, if a worker leads. */
  async dispatcherHolder(): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND objsubid = 1 AND granted`, [ADVISORY_LOCKS.outboxDispatcher]);
    return rows[0]?.pid;
  }

  /** SIGKILL of the process's group; resolves once it is gone. */
  async kill(p: Proc): Promise<void> {
    const gone = p.child.exitCode !== null || p.child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => p.child.once('exit', () => r()));
    process.kill(-p.child.pid!, 'SIGKILL');
    await gone;
  }

  tail(p: Proc, chars = 3000): string {
    return fs.existsSync(p.log) ? fs.readFileSync(p.log, 'utf8').slice(-chars) : '';
  }

  async stop(): Promise<void> {
    for (const p of [...this.procs].reverse()) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
      const exited = new Promise<void>((r) => p.child.once('exit', () => r()));
      try { process.kill(-p.child.pid!, 'SIGTERM'); } catch { continue; }
      const force = setTimeout(() => { try { process.kill(-p.child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 20_000);
      await exited;
      clearTimeout(force);
    }
    await this.pool?.end().catch(() => {});
    await this.temporal?.stop();
    await this.postgres?.stop();
  }
}
