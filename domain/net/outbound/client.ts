// The one way out to a user-supplied URL. Order matters and is the whole point:
//   check the URL -> resolve the host once -> check every address -> connect to the checked
//   address (an IP, never a name, so nothing resolves again and DNS rebinding cannot switch it).
// No redirects (a 3xx is a failure), bounded connect time, total time and response size, no proxy
// from the environment. Nothing here logs: callers log the failure kind, never bodies or header
// values.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkUrl, type OutboundTarget } from './url-policy.ts';
import { checkAddress } from './address-policy.ts';
import { NO_EXEMPTIONS, type Exemptions } from './exemptions.ts';
import { systemResolver, type Resolver } from './resolver.ts';

export type OutboundRequest = {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Total time for the whole send, DNS included. */
  timeoutMs?: number;
  /** Time to an established connection (TCP, and the TLS handshake for https). */
  connectTimeoutMs?: number;
  maxResponseBytes?: number;
  /** The caller's setting that permits plain http (exempted IP literals may use http anyway). */
  allowHttp?: boolean;
};

export type OutboundResponse = {
  ok: true;
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  durationMs: number;
  /** The address that was checked and connected to. */
  address: string;
};

export type OutboundFailureKind =
  | 'refused' // URL or address policy
  | 'dns' // the name did not resolve
  | 'connect_timeout'
  | 'timeout' // total time exceeded
  | 'too_large' // response body over maxResponseBytes
  | 'redirect' // 3xx: never followed
  | 'network'; // connection refused/reset, TLS failure, malformed response

export type OutboundFailure = {
  ok: false;
  kind: OutboundFailureKind;
  message: string;
  durationMs: number;
  status?: number;
  address?: string;
};

export type OutboundResult = OutboundResponse | OutboundFailure;

export type OutboundClientOptions = {
  exemptions?: Exemptions;
  resolver?: Resolver;
  /** Defaults for requests that do not set their own bounds. */
  connectTimeoutMs?: number;
  timeoutMs?: number;
  maxResponseBytes?: number;
};

export type OutboundClient = { send(request: OutboundRequest): Promise<OutboundResult> };

export const OUTBOUND_DEFAULTS = { connectTimeoutMs: 5_000, timeoutMs: 10_000, maxResponseBytes: 64 * 1024 };

// Headers the client owns: Host names the original host; the body length is computed.
const OWNED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

class Deadline extends Error {}

export function createOutboundClient(options: OutboundClientOptions = {}): OutboundClient {
  const exemptions = options.exemptions ?? NO_EXEMPTIONS;
  const resolver = options.resolver ?? systemResolver;

  async function send(req: OutboundRequest): Promise<OutboundResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const fail = (kind: OutboundFailureKind, message: string, extra: Partial<OutboundFailure> = {}): OutboundFailure =>
      ({ ok: false, kind, message, durationMs: elapsed(), ...extra });
    const timeoutMs = req.timeoutMs ?? options.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs;
    const connectTimeoutMs = req.connectTimeoutMs ?? options.connectTimeoutMs ?? OUTBOUND_DEFAULTS.connectTimeoutMs;
    const maxResponseBytes = req.maxResponseBytes ?? options.maxResponseBytes ?? OUTBOUND_DEFAULTS.maxResponseBytes;
    const deadline = started + timeoutMs;

    const verdict = checkUrl(req.url, { exemptions, allowHttp: req.allowHttp });
    if (!verdict.ok) return fail('refused', verdict.reason);
    const target = verdict.target;

    let address: string;
    if (target.literalAddress !== null) {
      address = target.literalAddress; // already checked by the URL policy; nothing to resolve
    } else {
      let answers;
      try {
        answers = await beforeDeadline(resolver(target.hostname), deadline);
      } catch (e) {
        if (e instanceof Deadline) return fail('timeout', 'timed out resolving the host name');
        const code = (e as { code?: unknown }).code;
        return fail('dns', `could not resolve ${target.hostname}${typeof code === 'string' ? ` (${code})` : ''}`);
      }
      if (!Array.isArray(answers) || answers.length === 0) return fail('dns', `no address for ${target.hostname}`);
      // Every address must pass: one private answer among public ones is how rebinding starts.
      const checked = answers.map((a) => checkAddress(String(a.address), exemptions));
      const bad = checked.find((c) => !c.allowed);
      if (bad && !bad.allowed) {
        return fail('refused', `${target.hostname} resolves to ${bad.address}, which is not allowed: ${bad.reason}`);
      }
      // One connection attempt, to the first checked address (no fallback across addresses).
      address = checked[0].address;
    }
    return exchange(target, address, req, { deadline, connectTimeoutMs, maxResponseBytes }, fail, elapsed);
  }

  return { send };
}

function beforeDeadline<T>(p: Promise<T>, deadline: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Deadline()), Math.max(0, deadline - performance.now()));
    p.then(
      (v) => { clearTimeout(timer); resolve(v); },
      (e) => { clearTimeout(timer); reject(e); },
    );
  });
}

/** A lookup that can only answer the checked address: even if Node asked, no DNS would happen. */
function pinnedLookup(address: string): LookupFunction {
  const family = address.includes(':') ? 6 : 4;
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as LookupFunction;
}

function exchange(
  target: OutboundTarget,
  address: string,
  req: OutboundRequest,
  bounds: { deadline: number; connectTimeoutMs: number; maxResponseBytes: number },
  fail: (kind: OutboundFailureKind, message: string, extra?: Partial<OutboundFailure>) => OutboundFailure,
  elapsed: () => number,
): Promise<OutboundResult> {
  return new Promise<OutboundResult>((resolve) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      if (!OWNED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }
    const body = req.body === undefined ? undefined : typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
    headers.host = target.hostHeader;
    if (body !== undefined) headers['content-length'] = String(body.byteLength);

    const isHttps = target.protocol === 'https:';
    const common: http.RequestOptions = {
      host: address, // an IP: Node connects without any lookup
      port: target.port,
      method: req.method,
      path: target.path,
      headers,
      lookup: pinnedLookup(address),
      // A private agent: no keep-alive reuse across hosts and no proxy taken from the environment
      // (NODE_USE_ENV_PROXY only affects the global agents).
      agent: isHttps ? new https.Agent({ keepAlive: false }) : new http.Agent({ keepAlive: false }),
    };

    let settled = false;
    let request: http.ClientRequest | undefined;
    const timers: NodeJS.Timeout[] = [];
    const finish = (result: OutboundResult) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      request?.destroy();
      resolve(result);
    };
    const remaining = () => Math.max(0, bounds.deadline - performance.now());
    timers.push(setTimeout(() => finish(fail('timeout', 'total time exceeded', { address })), remaining()));
    const connectTimer = setTimeout(
      () => finish(fail('connect_timeout', 'no connection within the connect timeout', { address })),
      Math.min(bounds.connectTimeoutMs, remaining()),
    );
    timers.push(connectTimer);

    try {
      request = isHttps
        // SNI and certificate verification use the host name, while the socket goes to the address.
        ? https.request({ ...common, servername: target.servername, rejectUnauthorized: true })
        : http.request(common);
    } catch (e) {
      finish(fail('refused', `invalid request: ${(e as Error).message}`));
      return;
    }
    request.on('socket', (socket) => {
      socket.once(isHttps ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    request.on('error', (e: NodeJS.ErrnoException) => {
      finish(fail('network', e.code ? `${e.code}: ${e.message}` : e.message, { address }));
    });
    request.on('response', (res) => {
      const status = res.statusCode ?? 0;
      res.on('error', (e) => finish(fail('network', e.message, { address, status })));
      if (status >= 300 && status < 400) {
        finish(fail('redirect', `redirect (${status}) not followed`, { address, status }));
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > bounds.maxResponseBytes) {
        finish(fail('too_large', `response larger than ${bounds.maxResponseBytes} bytes`, { address, status }));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > bounds.maxResponseBytes) {
          finish(fail('too_large', `response larger than ${bounds.maxResponseBytes} bytes`, { address, status }));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        finish({
          ok: true,
          status,
          headers: res.headers,
          body: Buffer.concat(chunks),
          durationMs: elapsed(),
          address,
        });
      });
      res.on('aborted', () => finish(fail('network', 'response aborted', { address, status })));
    });
    request.end(body);
  });
}

/** A bounded text excerpt of a response body, for delivery history. */
export function bodyExcerpt(body: Buffer, maxBytes = 1024): string {
  return body.subarray(0, maxBytes).toString('utf8');
}
