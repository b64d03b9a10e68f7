// The chain clients' HTTP exchange (domain/chains/node-http.ts) against local servers: answers of
// any status as they are, redirects not followed, URL userinfo never sent, a timeout and a refused
// connection as failures naming no URL, a kept-alive connection the server dropped tried once
// more on a new one, an answer cut short refused.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { exchange, NodeHttpFailure } from '../../domain/chains/node-http.ts';

const servers: { close: () => void }[] = [];
afterAll(() => servers.forEach((s) => s.close()));

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({ close: () => server.close() });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const failureOf = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a failure'); }, (e: unknown) => e as NodeHttpFailure);

test('the status and text as answered, the body and headers as sent; redirects are answers, not followed; userinfo never sent', async () => {
  const seen: { method?: string; auth?: string; body: string; path?: string }[] = [];
  const base = await serve((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c; });
    req.on('end', () => {
      seen.push({ method: req.method, auth: req.headers.authorization, body, path: req.url });
      if (req.url === '/moved') res.writeHead(307, { location: '/elsewhere' }).end('moved');
      else res.writeHead(req.url === '/broken' ? 500 : 200, { 'content-type': 'application/json' }).end('{"result":"é"}');
    });
  });
  const withUser = base.replace('http://', 'http://user:secret@');
  expect(await exchange({ method: 'POST', url: `${withUser}/rpc?x=1`, body: '{"a":1}', headers: { 'content-type': 'application/json' }, timeoutMs: 5_000 }))
    .toEqual({ status: 200, text: '{"result":"é"}' });
  expect(await exchange({ method: 'GET', url: `${base}/broken`, timeoutMs: 5_000 })).toEqual({ status: 500, text: '{"result":"é"}' });
  expect(await exchange({ method: 'POST', url: `${base}/moved`, body: 'x', timeoutMs: 5_000 })).toEqual({ status: 307, text: 'moved' });
  expect(seen.map((s) => s.path)).toEqual(['/rpc?x=1', '/broken', '/moved']);
  expect(seen[0]).toMatchObject({ method: 'POST', auth: undefined, body: '{"a":1}' });
});

test('no answer in time is a timeout; a refused connection names its code; neither names the URL', async () => {
  const base = await serve(() => { /* never answers */ });
  const slow = await failureOf(exchange({ method: 'GET', url: `${base}/?key=hidden`, timeoutMs: 150 }));
  expect(slow).toBeInstanceOf(NodeHttpFailure);
  expect(slow).toMatchObject({ reason: 'timeout', detail: 'no answer within 150 ms' });
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const refused = await failureOf(exchange({ method: 'GET', url: `http://127.0.0.1:${port}/?key=hidden`, timeoutMs: 5_000 }));
  expect(refused).toMatchObject({ reason: 'connection', detail: 'connection failed (ECONNREFUSED)' });
  expect(String((refused as Error).message)).not.toContain('hidden');
  expect(await failureOf(exchange({ method: 'GET', url: 'ftp://127.0.0.1/', timeoutMs: 100 }))).toMatchObject({ reason: 'connection' });
});

test('a kept-alive connection the server dropped is tried once more on a new one; an answer cut short is a failure', async () => {
  // Answers each connection's first request and keeps it open, then drops it at its next request.
  let connections = 0;
  const raw = net.createServer((socket) => {
    connections++;
    let requests = 0;
    socket.on('data', (chunk) => {
      if (!chunk.toString('latin1').includes('\r\n\r\n')) return;
      requests++;
      if (requests > 1) { socket.destroy(); return; }
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok');
    });
  });
  await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
  servers.push({ close: () => raw.close() });
  const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`;
  expect(await exchange({ method: 'POST', url, body: '{}', timeoutMs: 5_000 })).toEqual({ status: 200, text: 'ok' });
  expect(await exchange({ method: 'POST', url, body: '{}', timeoutMs: 5_000 })).toEqual({ status: 200, text: 'ok' });
  expect(connections).toBe(2);

  const cut = net.createServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial')));
  await new Promise<void>((r) => cut.listen(0, '127.0.0.1', r));
  servers.push({ close: () => cut.close() });
  const short = await failureOf(exchange({ method: 'GET', url: `http://127.0.0.1:${(cut.address() as AddressInfo).port}/`, timeoutMs: 5_000 }));
  expect(short).toMatchObject({ reason: 'connection' });
});
