// Builds the outbound request of an http binding: the canonical base URL, the canonical path under
// it, the query, the static headers, the caller's headers and body, and last the credential, added
// as the binding's `auth` says. Pure. The caller's headers and query may not name what the binding
// sets (its static headers, the credential's header or query parameter): an agent can neither
// replace nor shadow the injected credential.
import { checkUrl, type Exemptions, type OutboundRequest } from '../net/outbound/index.ts';
import { invalidField } from '../errors.ts';
import { DEFAULT_TIMEOUT_MS, type AuthSpec, type HttpConfig, type HttpMethod } from './binding-config.ts';
import { canonicalRequestPath, type RequestPath } from './request-path.ts';
import { MIN_CREDENTIAL_LENGTH } from './redaction.ts';

/** Kept small: an answer travels back in a JSON response (and, later, in a run record). */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
const MAX_CREDENTIAL_LENGTH = 8192;

/** The canonical base URL (`scheme://host[:port][/path]`, no trailing slash), or why it is refused. */
export function canonicalBaseUrl(raw: string, exemptions: Exemptions): { ok: true; url: string } | { ok: false; reason: string } {
  const v = checkUrl(raw, { exemptions, allowHttp: false });
  if (!v.ok) return { ok: false, reason: v.reason };
  const u = v.target.url;
  if (u.search !== '' || u.hash !== '' || /[?#]/.test(raw)) return { ok: false, reason: 'a base URL has no query or fragment (send the query per request)' };
  const p = canonicalRequestPath(u.pathname);
  if (!p.ok) return { ok: false, reason: `its path is refused: ${p.reason}` };
  const base = p.path.segments.length === 0 ? '' : `/${p.path.encoded.slice(1).replace(/\/$/, '')}`;
  return { ok: true, url: `${u.protocol}//${u.host}${base}` };
}

/** Why a credential cannot be used (it is never named), or null. */
export function credentialProblem(c: string): string | null {
  if (c.length < MIN_CREDENTIAL_LENGTH) return `it is shorter than ${MIN_CREDENTIAL_LENGTH} characters, too short to be redacted reliably`;
  if (c.length > MAX_CREDENTIAL_LENGTH) return `it is longer than ${MAX_CREDENTIAL_LENGTH} characters`;
  if (/[\u0000-\u001f\u007f]/.test(c)) return 'it contains control characters (a line break, say), which cannot go into a header';
  return null;
}

/** The header an auth type writes (lower case), if any. */
export function authHeaderName(auth: AuthSpec | undefined): string | null {
  if (!auth) return null;
  if (auth.type === 'bearer' || auth.type === 'basic') return 'authorization';
  return auth.type === 'header' ? auth.name.toLowerCase() : null;
}

export type HttpCall = {
  method: HttpMethod;
  path: RequestPath;
  query?: Record<string, string | number | boolean | (string | number | boolean)[]>;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Set when the body came as JSON (and the caller set no content-type). */
  json?: boolean;
};

/** The outbound request, and the values carrying the credential that went on the wire. */
export type BuiltRequest = { request: OutboundRequest; onWire: string[] };

/** Throws a 400 naming the field when the caller's headers or query collide with the binding's. */
export function buildHttpRequest(config: HttpConfig, call: HttpCall, credential: string | null, timeoutMs?: number): BuiltRequest {
  const auth = credential === null ? undefined : config.auth ?? { type: 'bearer' as const };
  const reserved = new Set(Object.keys(config.headers ?? {}).map((h) => h.toLowerCase()));
  const credHeader = authHeaderName(auth);
  if (credHeader) reserved.add(credHeader);
  const headers: Record<string, string> = {};
  for (const [n, v] of Object.entries(config.headers ?? {})) headers[n.toLowerCase()] = v;
  for (const [n, v] of Object.entries(call.headers ?? {})) {
    if (reserved.has(n.toLowerCase())) throw invalidField(`params.headers.${n}`, 'is set by the binding and cannot be sent by the caller');
    headers[n.toLowerCase()] = v;
  }
  if (call.json && headers['content-type'] === undefined) headers['content-type'] = 'application/json';

  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(call.query ?? {})) {
    if (auth?.type === 'query' && k === auth.name) throw invalidField(`params.query.${k}`, 'is set by the binding and cannot be sent by the caller');
    for (const item of Array.isArray(v) ? v : [v]) search.append(k, String(item));
  }
  const onWire: string[] = [];
  if (credential !== null && auth) {
    switch (auth.type) {
      case 'bearer': headers.authorization = `Bearer ${credential}`; break;
      case 'header': headers[auth.name.toLowerCase()] = `${auth.prefix ?? ''}${credential}`; break;
      case 'query': search.append(auth.name, credential); break;
      case 'basic': {
        const b64 = Buffer.from(`${auth.username}:${credential}`, 'utf8').toString('base64');
        headers.authorization = `Basic ${b64}`;
        onWire.push(b64, b64.replace(/=+$/, ''));
        break;
      }
    }
  }
  const qs = search.toString();
  const url = `${config.base_url}${call.path.encoded}${qs ? `?${qs}` : ''}`;
  return {
    request: {
      method: call.method, url, headers, body: call.body, allowHttp: false,
      timeoutMs: timeoutMs ?? config.timeout_ms ?? DEFAULT_TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES,
    },
    onWire,
  };
}

/** Response headers as one string per name (repeated ones joined as HTTP allows). */
export function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [n, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[n] = Array.isArray(v) ? v.join(n === 'set-cookie' ? '\n' : ', ') : v;
  }
  return out;
}
