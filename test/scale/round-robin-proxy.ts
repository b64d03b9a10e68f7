// A small round-robin HTTP proxy in front of the scale check's api processes, doing what a load
// balancer does: each request goes to the next upstream, a refused connection (a dead upstream:
// the request never reached it) is retried on the next one, and anything else that breaks
// mid-request is a 502 the client counts as unacknowledged. It appends the peer to
// X-Forwarded-For, as HAProxy's `option forwardfor` does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type RoundRobinProxy = { url: string; served: Map<number, number>; close: () => Promise<void> };

export async function startRoundRobinProxy(upstreamPorts: readonly number[]): Promise<RoundRobinProxy> {
  let next = 0;
  const served = new Map<number, number>(upstreamPorts.map((p) => [p, 0]));
  /** `first`: the upstream this request was given; a retry goes to the ones after it, in order. */
  const forward = (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, first: number, tries: number): void => {
    const port = upstreamPorts[(first + tries - 1) % upstreamPorts.length]!;
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const up = http.request({
      host: '127.0.0.1', port, method: req.method, path: req.url, agent: false,
      headers: { ...req.headers, 'x-forwarded-for': forwardedFor, 'content-length': String(body.length), connection: 'close' },
    }, (upRes) => {
      served.set(port, (served.get(port) ?? 0) + 1);
      res.writeHead(upRes.statusCode!, upRes.headers);
      upRes.pipe(res);
      upRes.on('error', () => res.destroy());
    });
    up.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNREFUSED' && tries < upstreamPorts.length) { forward(req, body, res, first, tries + 1); return; }
      if (res.headersSent) { res.destroy(); return; }
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`upstream ${port}: ${e.code ?? e.message}`);
    });
    up.end(body);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, Buffer.concat(chunks), res, next++, 1));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
