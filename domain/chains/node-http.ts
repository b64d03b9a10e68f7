// One HTTP exchange with a chain node (JSON-RPC or REST), for every chain client: node:http(s)
// with keep-alive agents. Why not fetch: a transfer's node reads are on the signing hot path, and
// fetch's WHATWG streams, AbortSignal timers and DOMExceptions cost several times the exchange
// itself on small JSON answers. What the clients relied on from fetch is kept: redirects are never
// followed (a redirected POST would be replayed elsewhere, credentials and all), userinfo in the
// URL is never sent (a client that takes credentials from it sends its own header), and a failure
// without an answer reads as a timeout or a connection failure naming only the error code (the
// URL, which may carry an API key, never reaches a message).
import http from 'node:http';
import https from 'node:https';

/** A node answer larger than this is refused (a misbehaving node must not exhaust memory). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

export type NodeExchange = {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
};

export type NodeAnswer = { status: number; text: string };

/** No answer: `reason` as ChainUnavailable takes it, `detail` safe to show (no URL). */
export class NodeHttpFailure extends Error {
  readonly reason: 'timeout' | 'connection';
  readonly detail: string;

  constructor(reason: 'timeout' | 'connection', detail: string) {
    super(detail);
    this.name = 'NodeHttpFailure';
    this.reason = reason;
    this.detail = detail;
  }
}

/** The node's status and body text, whatever the status; NodeHttpFailure when there is no answer. */
export async function exchange(x: NodeExchange): Promise<NodeAnswer> {
  let url: URL;
  try {
    url = new URL(x.url);
  } catch {
    throw new NodeHttpFailure('connection', 'connection failed (invalid URL)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new NodeHttpFailure('connection', 'connection failed (not an http(s) URL)');
  const body = x.body === undefined ? undefined : typeof x.body === 'string' ? Buffer.from(x.body, 'utf8') : x.body;
  const deadline = Date.now() + x.timeoutMs;
  try {
    return await once(url, x, body, deadline);
  } catch (e) {
    // A kept-alive connection the node had closed meanwhile fails before any answer: once more on
    // a new one. Every exchange is safe to repeat (reads, or a broadcast of the same bytes).
    if (e instanceof StaleConnection) return once(url, x, body, deadline);
    throw e;
  }
}

class StaleConnection extends Error {}

function once(url: URL, x: NodeExchange, body: Uint8Array | undefined, deadline: number): Promise<NodeAnswer> {
  return new Promise<NodeAnswer>((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    const request = (url.protocol === 'https:' ? https : http).request({
      protocol: url.protocol, hostname: url.hostname, port: url.port, path: `${url.pathname}${url.search}`,
      method: x.method, agent: agents[url.protocol as 'http:' | 'https:'],
      headers: { ...x.headers, ...(body ? { 'content-length': String(body.byteLength) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          settle(() => reject(new NodeHttpFailure('connection', `connection failed (answer over ${MAX_ANSWER_BYTES} bytes)`)));
          request.destroy();
        } else chunks.push(chunk);
      });
      res.on('end', () => settle(() => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') })));
      res.on('close', () => {
        if (!res.complete) settle(() => reject(new NodeHttpFailure('connection', 'connection failed (answer cut short)')));
      });
    });
    const timer = setTimeout(() => {
      settle(() => reject(new NodeHttpFailure('timeout', `no answer within ${x.timeoutMs} ms`)));
      request.destroy();
    }, Math.max(deadline - Date.now(), 0));
    request.on('error', (e: NodeJS.ErrnoException) => {
      const code = typeof e.code === 'string' ? e.code : 'network error';
      const stale = request.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
      settle(() => reject(stale ? new StaleConnection() : new NodeHttpFailure('connection', `connection failed (${code})`)));
    });
    request.end(body);
  });
}
