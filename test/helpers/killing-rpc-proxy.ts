// A JSON-RPC proxy in front of a test's chain node for crash tests: it forwards every request
// (single or batch, JSON-RPC 1.0 or 2.0 alike: bodies and answers pass through untouched) and
// records every raw-transaction send it forwards (eth_sendRawTransaction, Bitcoin's
// sendrawtransaction, Solana's sendTransaction: their bytes and the node's answer). Once armed
// with a method, the next request calling it is forwarded (so the node has done it), then `kill()`
// runs (the worker is SIGKILLed), then the connection is dropped unanswered: the service never
// learns what the node did. Armed with `beforeNode`, the request is not forwarded at all: the
// worker dies with the call in flight and the node never saw it.
// Credentials: the caller's Authorization header is passed on (a node behind the proxy checks the
// service's own credentials); a target URL with user:pass@ userinfo supplies them when the caller
// sent none (fetch refuses URLs that carry credentials).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The methods that hand a chain signed transaction bytes (params[0]). */
const SEND_METHODS = new Set(['eth_sendRawTransaction', 'sendrawtransaction', 'sendTransaction']);

export type ArmOptions = {
  /** Rejects after this long without such a call. Default 60 s. */
  timeoutMs?: number;
  /** Kill before forwarding: the node never sees the call. Default false (forwarded, answered, answer dropped). */
  beforeNode?: boolean;
};

export type KillingRpcProxy = {
  url: string;
  /** The params[0] of every raw-transaction send forwarded to the node, in arrival order. */
  sends: string[];
  /** The node's answers to those requests (the one at the kill never reached the worker). */
  answers: string[];
  /** Resolves once the worker is dead, with when and the node's answer it never got (undefined with beforeNode). */
  arm(method: string, opts?: ArmOptions): Promise<{ at: number; nodeAnswer: unknown }>;
  stop(): Promise<void>;
};

/** The target URL without userinfo, and the Basic credentials it carried. */
function targetOf(url: string): { href: string; authorization: string | null } {
  const u = new URL(url);
  if (u.username === '' && u.password === '') return { href: url, authorization: null };
  const authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
  u.username = '';
  u.password = '';
  return { href: u.href, authorization };
}

export async function startKillingRpcProxy(target: string, kill: () => Promise<void>): Promise<KillingRpcProxy> {
  const upstreamTarget = targetOf(target);
  const sends: string[] = [];
  const answers: string[] = [];
  type Trap = { method: string; beforeNode: boolean; resolve: (v: { at: number; nodeAnswer: unknown }) => void; reject: (e: unknown) => void };
  let armed: Trap | null = null;
  const spring = async (trap: Trap, req: http.IncomingMessage, nodeAnswer: unknown) => {
    try {
      await kill();
      trap.resolve({ at: Date.now(), nodeAnswer });
    } catch (e) {
      trap.reject(e);
    }
    req.socket.destroy();
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try { parsed = JSON.parse(body); } catch { parsed = undefined; }
        const calls = (Array.isArray(parsed) ? parsed : [parsed]) as ({ method?: unknown; params?: unknown } | null | undefined)[];
        const calling = (m: string) => calls.some((c) => c && typeof c === 'object' && c.method === m);
        const trap = armed;
        const trapped = trap !== null && calling(trap.method);
        if (trapped) armed = null; // one request springs it, whatever else is in flight
        if (trapped && trap.beforeNode) return spring(trap, req, undefined);
        const rawSends = calls.filter((c) => c && typeof c === 'object' && typeof c.method === 'string' && SEND_METHODS.has(c.method))
          .map((c) => String((c!.params as unknown[] | undefined)?.[0]));
        sends.push(...rawSends);
        const authorization = req.headers.authorization ?? upstreamTarget.authorization;
        const upstream = await fetch(upstreamTarget.href, {
          method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, body,
        });
        const text = await upstream.text();
        if (rawSends.length > 0) answers.push(text);
        if (trapped) {
          let nodeAnswer: unknown;
          try { nodeAnswer = JSON.parse(text); } catch { nodeAnswer = text; }
          return spring(trap, req, nodeAnswer);
        }
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(text);
      })().catch(() => { req.socket.destroy(); });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sends, answers,
    arm(method, opts = {}) {
      const timeoutMs = opts.timeoutMs ?? 60_000;
      const killed = new Promise<{ at: number; nodeAnswer: unknown }>((resolve, reject) => { armed = { method, beforeNode: opts.beforeNode === true, resolve, reject }; });
      const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no ${method} reached the proxy within ${timeoutMs / 1000} s`)), timeoutMs).unref());
      const first = Promise.race([killed, late]);
      first.catch(() => undefined); // awaited by the test; never an unhandled rejection here
      return first;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
