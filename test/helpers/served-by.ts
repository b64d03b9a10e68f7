// Requests to one chosen process among several listening on one port (SO_REUSEPORT, the api's
// API_PROCESSES): a connection's server-side socket is found in /proc/net/tcp by its client port,
// and its inode among the candidate processes' file descriptors. Linux only, like the api cluster.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';

const hexPort = (p: number) => p.toString(16).toUpperCase().padStart(4, '0');

/** The inode of the accepted socket of the connection from `clientPort` to `serverPort`; none until accepted. */
function acceptedInode(serverPort: number, clientPort: number): string | undefined {
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try { text = fs.readFileSync(file, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      if (f[1]!.endsWith(`:${hexPort(serverPort)}`) && f[2]!.endsWith(`:${hexPort(clientPort)}`) && f[9] !== '0') return f[9];
    }
  }
  return undefined;
}

function ownerOf(inode: string, pids: readonly number[]): number | undefined {
  for (const pid of pids) {
    let fds: string[];
    try { fds = fs.readdirSync(`/proc/${pid}/fd`); } catch { continue; }
    for (const fd of fds) {
      try { if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return pid; } catch { /* closed meanwhile */ }
    }
  }
  return undefined;
}

/** The ids of the processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
    } catch { return false; }
  }).map(Number);
}

/** A connection to `port` on 127.0.0.1 that process `pid` (one of `pids`) accepted. */
export async function connectionTo(port: number, pid: number, pids: readonly number[], timeoutMs = 20_000): Promise<net.Socket> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
    // Accepted a moment after the handshake: until then the socket has no inode.
    let owner: number | undefined;
    const acceptBy = Date.now() + 2000;
    while (owner === undefined && Date.now() < acceptBy) {
      const inode = acceptedInode(port, socket.localPort!);
      owner = inode ? ownerOf(inode, pids) : undefined;
      if (owner === undefined) await new Promise((r) => setTimeout(r, 10));
    }
    if (owner === pid) return socket;
    socket.destroy();
  }
  throw new Error(`no connection to port ${port} accepted by process ${pid} within ${timeoutMs} ms`);
}

export type Answer = { status: number; body: any };

/** One request on a connection `pid` accepted; the connection is closed after it. */
export async function requestVia(port: number, pid: number, pids: readonly number[], method: string, path: string, opts: { token?: string; body?: unknown } = {}): Promise<Answer> {
  const socket = await connectionTo(port, pid, pids);
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request({
      createConnection: () => socket, method, path, host: '127.0.0.1', port,
      headers: {
        connection: 'close',
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: any = text;
        try { body = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
        socket.destroy();
        resolve({ status: res.statusCode!, body });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
