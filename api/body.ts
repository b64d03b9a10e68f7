// Reads a JSON request body with a size limit. Malformed JSON, oversize bodies and non-JSON
// content types become problem details (400, 413, 415) before any handler runs.
import type { AppContext } from './route.ts';
import { Problem, badRequest } from '../domain/errors.ts';

export async function readJsonBody(ctx: AppContext, limit: number): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) throw new Problem(413, `Request body exceeds ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Problem(413, `Request body exceeds ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  const type = ctx.get('content-type');
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new Problem(415, 'Request bodies must be JSON (Content-Type: application/json)');
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('Request body is not valid JSON');
  }
}
