// A body over the limit (BODY_LIMIT_BYTES, 1 MiB by default) is refused with 413 problem details
// and the connection ends with the answer: the rest of the body is never read, so the connection
// cannot carry another request, and it must not sit open until the keep-alive timeout (65 s).
// Raw sockets, because fetch hides connection handling.
import net from 'node:net';
import { apiUrl } from '../helpers/api.ts';

type Exchange = { response: string; closed: boolean };

/**
 * Sends `head` and `body` on a fresh connection and collects what comes back until it closes.
 * `readAfterMs`: the client reads nothing until then, as a busy client does.
 */
function exchange(head: string, body: Buffer[], readAfterMs = 0): Promise<Exchange> {
  const url = new URL(apiUrl());
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    if (readAfterMs > 0) {
      socket.pause();
      setTimeout(() => socket.resume(), readAfterMs);
    }
    let response = '';
    socket.on('data', (d) => { response += d.toString('latin1'); });
    // Writes after the server closed fail (EPIPE, ECONNRESET): the answer is what counts.
    socket.on('error', () => {});
    socket.on('close', () => resolve({ response, closed: true }));
    socket.write(head);
    for (const chunk of body) socket.write(chunk);
    // The client then waits without ending the body, as an uploader waiting for an answer does.
  });
}

const head = (extra: string) => `POST /v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}\r\n`;
const OVER_LIMIT = 4 << 20;

function expectRefusedAndClosed(r: Exchange): void {
  expect(r.response).toMatch(/^HTTP\/1\.1 413 /);
  expect(r.response).toMatch(/\r\nconnection: close\r\n/i);
  expect(r.response).toMatch(/\r\ncontent-type: application\/problem\+json/i);
  expect(r.response).toMatch(/"status":413/);
  expect(r.closed).toBe(true);
}

// The test's own timeout (well under the 65 s keep-alive) is what "promptly" means here.
test('a chunked body over the limit: 413, then the connection closes', async () => {
  const chunk = Buffer.alloc(64 << 10, 'a');
  const chunks = Array.from({ length: OVER_LIMIT / chunk.length }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
  expectRefusedAndClosed(await exchange(head('Transfer-Encoding: chunked\r\n'), chunks));
}, 15_000);

// A busy client reads its answer late, while its upload is still in flight: the 413 must still be
// there to read (the server must not lose it by closing under the upload).
test('a client that reads the answer late still gets the 413', async () => {
  const chunk = Buffer.alloc(64 << 10, 'a');
  const chunks = Array.from({ length: OVER_LIMIT / chunk.length }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
  expectRefusedAndClosed(await exchange(head('Transfer-Encoding: chunked\r\n'), chunks, 1000));
}, 15_000);

test('a declared Content-Length over the limit: 413 before the body, then the connection closes', async () => {
  expectRefusedAndClosed(await exchange(head(`Content-Length: ${OVER_LIMIT}\r\n`), [Buffer.from('{"email":"')]));
}, 15_000);

test('other refusals keep the connection alive for the next request', async () => {
  const url = new URL(apiUrl());
  const socket = net.connect(Number(url.port), url.hostname);
  let response = '';
  const answers = (n: number) => new Promise<void>((resolve) => {
    const check = () => { if ((response.match(/HTTP\/1\.1 /g) ?? []).length >= n) { socket.off('data', check); resolve(); } };
    socket.on('data', (d) => { response += d.toString('latin1'); check(); });
  });
  const malformed = '{"broken';
  const request = `POST /v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${malformed.length}\r\n\r\n${malformed}`;
  const both = answers(2);
  socket.write(request + request);
  await both;
  socket.destroy();
  expect(response.match(/HTTP\/1\.1 400 /g)).toHaveLength(2);
  expect(response).not.toMatch(/connection: close/i);
}, 15_000);
