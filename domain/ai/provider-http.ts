// The HTTP exchange both protocols share: a JSON POST through the SSRF-safe outbound client, and
// the classification of what came back. Messages name the status and the provider's own error
// text (cut short, with the key masked wherever it appears); never a header value or the key.
import type { OutboundClient } from '../net/outbound/client.ts';
import { ModelProviderError, type TokenUsage } from './model-provider.ts';

/** Long enough for a large answer from a slow model; an automation run has 300 s in all. */
export const GENERATE_TIMEOUT_MS = 120_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** 16384 tokens of text with JSON around it fit well within this. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;
/** A Retry-After longer than this cannot be waited out within a run: the step fails instead. */
export const MAX_RETRY_AFTER_MS = 60_000;
const MAX_ERROR_TEXT = 300;

export type ProviderEndpoint = {
  outbound: OutboundClient;
  /** The base URL, without a trailing slash. */
  baseUrl: string;
  /** null: no key is sent (local model servers). */
  apiKey: string | null;
  /** The operator's own endpoint may be plain http; a step's may not (unless an exempted IP). */
  allowHttp: boolean;
};

/** `text` with every occurrence of `secret` masked (keys of 8+ characters; shorter ones would mask noise). */
export function maskSecret(text: string, secret: string | null): string {
  if (!secret || secret.length < 8) return text;
  return text.split(secret).join('[redacted]');
}

/** Posts `body` as JSON; the parsed JSON answer of a 2xx, or a ModelProviderError. */
export async function postJson(e: ProviderEndpoint, path: string, headers: Record<string, string>, body: unknown): Promise<Record<string, unknown>> {
  const r = await e.outbound.send({
    method: 'POST', url: `${e.baseUrl}${path}`,
    headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'vault-ai/1', ...headers },
    body: JSON.stringify(body), timeoutMs: GENERATE_TIMEOUT_MS, connectTimeoutMs: CONNECT_TIMEOUT_MS,
    maxResponseBytes: MAX_ANSWER_BYTES, allowHttp: e.allowHttp,
  });
  if (!r.ok) {
    const why = maskSecret(r.message, e.apiKey);
    switch (r.kind) {
      case 'refused': throw new ModelProviderError('blocked', `the provider's address is not allowed: ${why}`);
      case 'redirect': throw new ModelProviderError('rejected', `the provider answered with a redirect (HTTP ${r.status ?? '3xx'}), which is never followed: check the base URL`);
      case 'too_large': throw new ModelProviderError('malformed', `the provider's answer is larger than ${MAX_ANSWER_BYTES} bytes`);
      case 'timeout':
      case 'connect_timeout': throw new ModelProviderError('timeout', `the provider did not answer in time (${why})`);
      default: throw new ModelProviderError('network', `could not reach the provider (${r.kind}: ${why})`);
    }
  }
  const text = r.body.toString('utf8');
  if (r.status < 200 || r.status >= 300) {
    const detail = maskSecret(errorText(text), e.apiKey);
    const msg = `the provider answered HTTP ${r.status}${detail ? `: ${detail}` : ''}`;
    if (r.status === 429) throw new ModelProviderError('rate_limited', msg, { status: 429, retryAfterMs: retryAfterMs(r.headers) });
    if (r.status >= 500) throw new ModelProviderError('unavailable', msg, { status: r.status, retryAfterMs: retryAfterMs(r.headers) });
    throw new ModelProviderError('rejected', msg, { status: r.status });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ModelProviderError('malformed', 'the provider\'s answer is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ModelProviderError('malformed', 'the provider\'s answer is not a JSON object');
  return parsed as Record<string, unknown>;
}

/** The provider's own error message (`{error: {message}}` in both protocols), cut short. */
function errorText(body: string): string {
  let msg = '';
  try {
    const j = JSON.parse(body) as { error?: unknown; message?: unknown };
    const inner = j.error && typeof j.error === 'object' ? (j.error as { message?: unknown }).message : j.error;
    msg = typeof inner === 'string' ? inner : typeof j.message === 'string' ? j.message : '';
  } catch {
    msg = body.trim().startsWith('<') ? '' : body; // an HTML error page says nothing useful
  }
  msg = msg.replace(/[\r\n\t]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return msg.length > MAX_ERROR_TEXT ? `${msg.slice(0, MAX_ERROR_TEXT)}…` : msg;
}

/** `retry-after-ms` (OpenAI) or `retry-after` in seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | null {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim();
  const ms = one(headers['retry-after-ms']);
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const v = one(headers['retry-after']);
  if (!v) return null;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** A non-negative integer count, or 0 (local servers sometimes omit usage). */
export const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);

export function usageOf(input: number, output: number): TokenUsage {
  return { input_tokens: input, output_tokens: output, total_tokens: input + output };
}
