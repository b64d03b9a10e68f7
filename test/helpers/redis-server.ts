// A real Redis for a test file: Debian's redis-server on a free port of 127.0.0.1, nothing saved to
// disk. Missing binary is a failure that says what to install, never a skip.
import fs from 'node:fs';
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, waitFor } from './stack.ts';

export const REDIS_SERVER = '/usr/bin/redis-server';

export class RedisServer {
  readonly port: number;
  private child: ChildProcess | null = null;
  private output = '';

  private constructor(port: number) {
    this.port = port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<RedisServer> {
    if (!fs.existsSync(REDIS_SERVER)) {
      throw new Error(`${REDIS_SERVER} is missing: these tests need a real Redis (apt-get install redis-server)`);
    }
    const r = new RedisServer(await freePort());
    await r.restart();
    return r;
  }

  /** Starts it again on the same port (after stop()), empty. */
  async restart(): Promise<void> {
    if (this.child) return;
    const child = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.output = '';
    for (const s of [child.stdout!, child.stderr!]) s.on('data', (c: Buffer) => { this.output = (this.output + c.toString()).slice(-4000); });
    this.child = child;
    try {
      await waitFor('redis-server', 15_000, async () => ((await this.answersPing()) ? true : undefined), () => child.exitCode !== null);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n--- redis-server output ---\n${this.output}`);
    }
  }

  /** Stops it (connections drop, new ones are refused) and waits for the exit. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  private answersPing(): Promise<boolean> {
    return new Promise((resolve) => {
      const s = net.connect(this.port, '127.0.0.1');
      s.setTimeout(1_000);
      s.on('connect', () => s.write('PING\r\n'));
      s.on('data', (d) => { resolve(d.toString().startsWith('+PONG')); s.destroy(); });
      s.on('error', () => resolve(false));
      s.on('timeout', () => { resolve(false); s.destroy(); });
    });
  }
}
