// Reads a JSON request body with a size limit. Malformed JSON, oversize bodies and non-JSON
// content types become problem details (400, 413, 415) before any handler runs, and so does
// JSON that breaks the rule every input obeys (api/input/safe-json.ts). readRawBody hands a
// handler the exact bytes, with the same limit.
import type { Socket } from 'node:net';
import type { AppContext } from './route.ts';
import { Problem, badRequest } from '../domain/errors.ts';
import { rejectUnsafeInput } from './validate.ts';

export async function readJsonBody(ctx: AppContext, limit: number): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) throw tooLarge(ctx, limit);
  const raw = await readUpTo(ctx, limit);
  if (raw === null) throw tooLarge(ctx, limit);
  if (raw.length === 0) return undefined;
  const type = ctx.get('content-type');
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new Problem(415, 'Request bodies must be JSON (Content-Type: application/json)');
  }
  const text = raw.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text); // iterative in V8: deep nesting cannot overflow here
  } catch {
    throw badRequest('Request body is not valid JSON');
  }
  rejectUnsafeInput(body, 'body');
  return body;
}

/** The body as sent, for a handler that verifies a signature over its exact bytes (the payment processor's webhook). */
export async function readRawBody(ctx: AppContext, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) throw tooLarge(ctx, limit);
  const raw = await readUpTo(ctx, limit);
  if (raw === null) throw tooLarge(ctx, limit);
  return raw;
}

/**
 * The body, or null once it passes `limit`. Listeners, not `for await`: leaving a `for await`
 * early destroys the request stream, and destroying an unfinished request destroys its socket,
 * which can race the 413 being written. Here the request is left alone: Node discards the rest
 * once the answer is sent, and the connection then closes (see lingerOnClose).
 * A client that hung up before its body was read: Node has destroyed the request by then, and a
 * destroyed stream never emits `end` or `error`, so without the checks below the handler would
 * wait forever (holding its memory and every graceful stop for the drain timeout).
 */
function readUpTo(ctx: AppContext, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const req = ctx.req;
    if (req.destroyed) {
      reject(clientGone());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const off = () => { req.off('data', onData); req.off('end', onEnd); req.off('error', onError); req.off('close', onClose); };
    const done = (v: Buffer | null) => { off(); resolve(v); };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(null);
      else chunks.push(chunk);
    };
    const onEnd = () => done(Buffer.concat(chunks));
    const onError = (e: Error) => { off(); reject(e); };
    // Destroyed while reading (the client hung up): `close` without `end`.
    const onClose = () => { off(); reject(clientGone()); };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** No one is left to answer; the request is not carried out (its client must retry, as it never got an answer). */
function clientGone(): Problem {
  return badRequest('The client closed the connection before its request body was read: nothing was done');
}

/**
 * 413, and the connection ends with the answer. The rest of the body is never read, so the
 * connection cannot carry another request: without `Connection: close` Node would keep it open
 * waiting for the body's end (up to the keep-alive timeout). With it, Node ends the socket as
 * soon as the answer is written.
 */
function tooLarge(ctx: AppContext, limit: number): Problem {
  lingerOnClose(ctx.req.socket);
  return new Problem(413, `Request body exceeds ${limit} bytes`, { headers: { Connection: 'close' } });
}

const LINGER_IDLE_MS = 1_000;
const LINGER_MAX_MS = 10_000;

/**
 * With `Connection: close`, Node destroys the socket as soon as the answer is written. A client
 * still uploading then gets a RST from the kernel, and the RST can discard the 413 before the
 * client has read it (seen under load). So close the way nginx's lingering close does: send FIN
 * after the answer, keep reading (and discarding) what the client still sends, and close once it
 * has been quiet for LINGER_IDLE_MS, or after LINGER_MAX_MS at most.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    const hardStop = setTimeout(() => this.destroy(), LINGER_MAX_MS);
    let idle = setTimeout(() => this.destroy(), LINGER_IDLE_MS);
    const stop = () => { clearTimeout(hardStop); clearTimeout(idle); };
    this.once('close', stop);
    this.once('end', () => this.destroy());
    this.on('data', () => {
      clearTimeout(idle);
      idle = setTimeout(() => this.destroy(), LINGER_IDLE_MS);
    });
    this.resume();
  };
}
