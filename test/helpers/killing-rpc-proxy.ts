// A JSON-RPC proxy in front of a test's EVM node for crash tests: it forwards every request and
// its answer, and records every eth_sendRawTransaction (its bytes and the node's answer). Once
// armed with a method, the next request calling it is forwarded (so the node has done it), then
// `kill()` runs (the worker is SIGKILLed), then the connection is dropped unanswered: the service
// never learns what the node did.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type KillingRpcProxy = {
  url: string;
  /** The params[0] of every eth_sendRawTransaction, in arrival order. */
  sends: string[];
  /** The node's answers to those requests (the one at the kill never reached the worker). */
  answers: string[];
  /** Resolves once the worker is dead, with when and the node's answer it never got; rejects after `timeoutMs` without such a call. */
  arm(method: string, timeoutMs?: number): Promise<{ at: number; nodeAnswer: unknown }>;
  stop(): Promise<void>;
};

export async function startKillingRpcProxy(target: string, kill: () => Promise<void>): Promise<KillingRpcProxy> {
  const sends: string[] = [];
  const answers: string[] = [];
  let armed: { method: string; resolve: (v: { at: number; nodeAnswer: unknown }) => void; reject: (e: unknown) => void } | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try { parsed = JSON.parse(body); } catch { parsed = undefined; }
        const calls = (Array.isArray(parsed) ? parsed : [parsed]) as { method?: unknown; params?: unknown }[];
        const rawSends = calls.filter((c) => c && c.method === 'eth_sendRawTransaction').map((c) => String((c.params as unknown[] | undefined)?.[0]));
        sends.push(...rawSends);
        const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const text = await upstream.text();
        if (rawSends.length > 0) answers.push(text);
        const trap = armed;
        if (trap && calls.some((c) => c && c.method === trap.method)) {
          armed = null;
          try {
            await kill();
            trap.resolve({ at: Date.now(), nodeAnswer: JSON.parse(text) });
          } catch (e) {
            trap.reject(e);
          }
          req.socket.destroy();
          return;
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
    arm(method, timeoutMs = 60_000) {
      const killed = new Promise<{ at: number; nodeAnswer: unknown }>((resolve, reject) => { armed = { method, resolve, reject }; });
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
