// A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL, Temporal), so a test can make it
// unreachable for one process as if it had stopped: cut() closes every connection and the
// listener (new connections are refused), restore() listens on the same port again.
import net from 'node:net';

/** A TCP address, or a Unix socket (PostgreSQL's `?host=/dir` URLs). */
export type ProxyTarget = { host: string; port: number } | { path: string };

export class TcpProxy {
  readonly port: number;
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private readonly target: ProxyTarget;

  private constructor(port: number, target: ProxyTarget) {
    this.port = port;
    this.target = target;
  }

  static async start(target: ProxyTarget): Promise<TcpProxy> {
    const probe = net.createServer();
    const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as net.AddressInfo).port)));
    await new Promise((r) => probe.close(r));
    const p = new TcpProxy(port, target);
    await p.restore();
    return p;
  }

  /** Serves again on the same port. */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => {
      const upstream = 'path' in this.target ? net.connect(this.target.path) : net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(this.port, '127.0.0.1', () => resolve()); });
    this.server = server;
  }

  /** Every open connection is reset and new ones are refused, until restore(). */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    // A TCP peer sees a reset, as from a stopped server; a Unix socket cannot be reset.
    for (const s of this.sockets) { try { s.resetAndDestroy(); } catch { s.destroy(); } }
    if (server) await new Promise((r) => server.close(r));
  }

  async stop(): Promise<void> {
    await this.cut();
  }
}
