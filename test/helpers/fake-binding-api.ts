// A real HTTP API on 127.0.0.1 behind an execution binding, for test/integration/bindings.test.ts.
// It records every request exactly as it arrived (method, raw request target, headers, body) and
// by default echoes it all back: each received header as an `x-echo-<name>` response header and a
// JSON body with the method, target, query, headers and body. With `leak(credential)` it also
// answers with the credential itself in a header and in the body, raw, base64, base64url,
// percent-encoded and inside a longer base64 text, as a careless or hostile API might.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ApiRequest = { method: string; target: string; path: string; query: Record<string, string>; headers: http.IncomingHttpHeaders; body: string };
export type ApiAnswer = { status: number; headers?: Record<string, string>; body?: string };

export type FakeBindingApi = {
  url: string;
  received: () => ApiRequest[];
  /** Forgets what was received. */
  clear: () => void;
  /** Answer with this credential in every spelling, besides the echo. */
  leak: (credential: string | null) => void;
  /** Answer every request with this instead of the echo (null: back to the echo). */
  respond: (answer: ((req: ApiRequest) => ApiAnswer) | null) => void;
  close: () => Promise<void>;
};

function leakBody(c: string): Record<string, string> {
  const b = Buffer.from(c, 'utf8');
  return {
    raw: c,
    base64: b.toString('base64'),
    base64url: b.toString('base64url'),
    percent: encodeURIComponent(c),
    sentence: `your key is ${c}, keep it safe`,
    // The credential 1 and 2 bytes into a longer base64 text: no aligned copy of its base64 appears.
    wrapped1: Buffer.concat([Buffer.from('{'), b, Buffer.from('}')]).toString('base64'),
    wrapped2: Buffer.concat([Buffer.from('{"'), b, Buffer.from('"}')]).toString('base64'),
  };
}

export async function startFakeBindingApi(): Promise<FakeBindingApi> {
  const log: ApiRequest[] = [];
  let leaked: string | null = null;
  let custom: ((req: ApiRequest) => ApiAnswer) | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = req.url ?? '/';
      const u = new URL(target, 'http://fake.invalid');
      const entry: ApiRequest = {
        method: req.method ?? '', target, path: u.pathname, query: Object.fromEntries(u.searchParams), headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      log.push(entry);
      const answer: ApiAnswer = custom ? custom(entry) : {
        status: 200,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [`x-echo-${k}`, String(v)])),
        body: JSON.stringify({ method: entry.method, target, query: entry.query, headers: req.headers, body: entry.body, ...(leaked ? { leaked: leakBody(leaked) } : {}) }),
      };
      const headers: Record<string, string> = { 'content-type': 'application/json', ...answer.headers };
      if (leaked && !custom) {
        headers['x-leaked-token'] = leaked;
        headers['x-leaked-b64'] = Buffer.from(leaked).toString('base64');
      }
      res.writeHead(answer.status, headers);
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => [...log],
    clear: () => { log.length = 0; },
    leak: (c) => { leaked = c; },
    respond: (a) => { custom = a; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
