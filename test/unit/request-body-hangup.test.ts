// Reading a request body when the client has hung up (api/body.ts). Node destroys the request of
// a closed connection, and a destroyed stream emits neither `end` nor `error`: a reader that only
// listened for those waited forever (seen in the bench: sign requests autocannon left behind at
// the end of a run held the api's stop for its whole drain timeout). Real sockets, real server.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { readJsonBody } from '../../api/body.ts';
import type { AppContext } from '../../api/route.ts';
import { Problem } from '../../domain/errors.ts';

type Outcome = { body?: unknown; error?: unknown };

/** A server whose handler reads the body `delayMs` after the request arrived (as stages before it take time). */
async function serverReadingAfter(delayMs: number, onRequest?: () => void): Promise<{ port: number; outcome: Promise<Outcome>; close: () => void }> {
  let report!: (o: Outcome) => void;
  const outcome = new Promise<Outcome>((resolve) => { report = resolve; });
  const server = http.createServer((req, res) => {
    onRequest?.();
    const ctx = { req, get: (h: string) => String(req.headers[h.toLowerCase()] ?? '') } as unknown as AppContext;
    setTimeout(() => {
      readJsonBody(ctx, 1024).then((body) => report({ body }), (error: unknown) => report({ error })).finally(() => res.end());
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as AddressInfo).port, outcome, close: () => { server.closeAllConnections(); server.close(); } };
}

/** Sends the head and `body` on a raw socket; `hangUp` closes it right after. */
function send(port: number, body: string, declaredLength: number, hangUp: boolean): net.Socket {
  const socket = net.connect(port, '127.0.0.1', () => {
    socket.write(`POST /x HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: ${declaredLength}\r\n\r\n${body}`);
    if (hangUp) setTimeout(() => socket.destroy(), 20);
  });
  socket.on('error', () => {});
  return socket;
}

/** The outcome, or 'still waiting' after `ms`: a reader that hangs is the failure here. */
const within = (p: Promise<Outcome>, ms: number) => Promise.race([p, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms))]);

test('a body read after the client hung up (whole request sent) ends in a 400, not a wait forever', async () => {
  const s = await serverReadingAfter(150);
  try {
    send(s.port, '{"a":1}', 7, true);
    const o = await within(s.outcome, 5_000);
    expect(o).not.toBe('still waiting');
    expect((o as Outcome).error).toBeInstanceOf(Problem);
    expect(((o as Outcome).error as Problem).status).toBe(400);
    expect(((o as Outcome).error as Problem).message).toMatch(/closed the connection/);
  } finally {
    s.close();
  }
});

test('a client that hangs up in the middle of its body, while it is being read, ends the read too', async () => {
  let arrived!: () => void;
  const headArrived = new Promise<void>((resolve) => { arrived = resolve; });
  const s = await serverReadingAfter(0, () => arrived());
  try {
    const socket = send(s.port, '{"a":', 7, false);
    await headArrived;
    await new Promise((r) => setTimeout(r, 50)); // the reader is listening now
    socket.destroy();
    const o = await within(s.outcome, 5_000);
    expect(o).not.toBe('still waiting');
    expect((o as Outcome).error).toBeDefined();
  } finally {
    s.close();
  }
});

test('a client that stays gets its body read, however late the handler reads it', async () => {
  const s = await serverReadingAfter(150);
  try {
    const socket = send(s.port, '{"a":1}', 7, false);
    expect(await within(s.outcome, 5_000)).toEqual({ body: { a: 1 } });
    socket.destroy();
  } finally {
    s.close();
  }
});
