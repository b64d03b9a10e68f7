// One JSON request to our own /v1 API: the only place the tool server does HTTP. Bodies and
// answers are JSON; a refusal becomes an ApiError carrying the API's problem details.
import { ApiError, problemOf, unreachable } from './api-error.ts';

export type Query = Record<string, string | number | boolean | undefined>;

export type JsonRequest = {
  bearer?: string;
  body?: unknown;
  query?: Query;
  headers?: Record<string, string>;
  timeoutMs?: number;
};

export const DEFAULT_TIMEOUT_MS = 30_000;

/** A secret path for a URL: each segment percent-encoded, the slashes kept (the API canonicalizes). */
export const encodePath = (path: string): string => path.split('/').map(encodeURIComponent).join('/');

export async function sendJson<T>(apiUrl: string, method: string, path: string, req: JsonRequest = {}): Promise<T> {
  const url = new URL(`${apiUrl}${path}`);
  for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  if (req.bearer) headers.authorization = `Bearer ${req.bearer}`;
  let payload: string | undefined;
  if (req.body !== undefined) {
    payload = JSON.stringify(req.body);
    headers['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    // No redirects: a bearer token must never follow a redirect to another host.
    res = await fetch(url, { method, headers, body: payload, redirect: 'manual', signal: AbortSignal.timeout(req.timeoutMs ?? DEFAULT_TIMEOUT_MS) });
  } catch (e) {
    throw unreachable(apiUrl, e);
  }
  const text = await res.text();
  let body: unknown;
  try { body = text ? JSON.parse(text) : undefined; } catch { body = undefined; }
  if (res.status >= 200 && res.status < 300) return body as T;
  throw new ApiError(problemOf(res.status, res.statusText, body));
}
