// Reads a JSON request body with a size limit. Malformed JSON, oversize bodies and non-JSON
// content types become problem details (400, 413, 415) before any handler runs, and so does
// JSON that breaks the rule every input obeys (api/input/safe-json.ts).
import type { AppContext } from './route.ts';
import { Problem, badRequest } from '../domain/errors.ts';
import { rejectUnsafeInput } from './validate.ts';

export async function readJsonBody(ctx: AppContext, limit: number): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  const type = ctx.get('content-type');
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new Problem(415, 'Request bodies must be JSON (Content-Type: application/json)');
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text); // iterative in V8: deep nesting cannot overflow here
  } catch {
    throw badRequest('Request body is not valid JSON');
  }
  rejectUnsafeInput(body, 'body');
  return body;
}

/**
 * 413, and the connection ends with the answer. The rest of the body is never read, so the
 * connection cannot carry another request: without `Connection: close` Node would keep it open
 * waiting for the body's end (up to the keep-alive timeout). With it, Node ends the socket as
 * soon as the answer is written.
 */
function tooLarge(limit: number): Problem {
  return new Problem(413, `Request body exceeds ${limit} bytes`, { headers: { Connection: 'close' } });
}
