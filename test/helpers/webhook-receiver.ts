// A real HTTP receiver on 127.0.0.1 for webhook tests: records every request (raw body and
// headers) and answers what the test scripts, so tests can fail it N times, slow it, or redirect.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { at: number; headers: http.IncomingHttpHeaders; raw: string; body: any };
export type Answer = { status: number; body?: string; headers?: Record<string, string> };
/** What to answer the n-th request (1-based) of a path; a promise holds the answer back until it settles. */
export type Responder = (n: number, req: Received) => Answer | Promise<Answer>;

export type Receiver = {
  url: (path?: string) => string;
  /** Requests to `path`, in arrival order. */
  received: (path?: string) => Received[];
  respond: (path: string, responder: Responder) => void;
  /** Resolves when `path` has received at least `count` requests. */
  waitFor: (count: number, path?: string, timeoutMs?: number) => Promise<Received[]>;
  close: () => Promise<void>;
};

const acceptAll: Responder = () => ({ status: 200, body: 'ok' });

export async function startReceiver(): Promise<Receiver> {
  const log = new Map<string, Received[]>();
  const responders = new Map<string, Responder>();
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try { body = JSON.parse(raw); } catch { body = undefined; }
      const path = req.url ?? '/';
      const entry: Received = { at: Date.now(), headers: req.headers, raw, body };
      const list = log.get(path) ?? [];
      list.push(entry);
      log.set(path, list);
      for (const w of waiters.splice(0)) w();
      void Promise.resolve((responders.get(path) ?? acceptAll)(list.length, entry)).then((answer) => {
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const received = (path = '/hook') => log.get(path) ?? [];
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    respond: (path, responder) => { responders.set(path, responder); },
    async waitFor(count, path = '/hook', timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received(path).length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`${path}: ${received(path).length} of ${count} requests within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 1000));
          waiters.push(() => { clearTimeout(t); resolve(); });
        });
      }
      return received(path);
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
