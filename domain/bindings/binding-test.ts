// POST …/bindings/{id}/test: one GET of the base URL through the SSRF-safe client, with the static
// headers and the credential added as an execution would add them. Success means the service
// answered below 400 (a redirect counts: the host is reachable, redirects are just never
// followed). The answer is only {success, latency_ms, error}: no status line, header or body of
// the outside service comes back, and the error text is redacted like an execution's answer.
import type { ActionContext } from '../audit/action-context.ts';
import type { OutboundClient } from '../net/outbound/index.ts';
import { Problem } from '../errors.ts';
import type { BindingRow } from './binding-repository.ts';
import type { CredentialResolver } from './credential-resolver.ts';
import { DEFAULT_TIMEOUT_MS } from './binding-config.ts';
import { buildHttpRequest } from './http-request.ts';
import { credentialForms, redactText } from './redaction.ts';

export type BindingTestResult = { success: boolean; latencyMs: number; error: string | null };

export async function testBinding(d: { outbound: OutboundClient; credentials: CredentialResolver }, agentCtx: ActionContext, b: BindingRow,
  timeoutMs: number | undefined): Promise<BindingTestResult> {
  let credential: string | null;
  try {
    credential = await d.credentials.resolve(agentCtx, b);
  } catch (e) {
    if (e instanceof Problem) return { success: false, latencyMs: 0, error: e.detail };
    throw e;
  }
  const built = buildHttpRequest(b.config, { method: 'GET', path: { segments: [], trailingSlash: false, encoded: '' } }, credential,
    timeoutMs ?? b.config.timeout_ms ?? DEFAULT_TIMEOUT_MS);
  const res = await d.outbound.send(built.request);
  const success = res.ok ? res.status < 400 : res.kind === 'redirect';
  let error: string | null = null;
  if (!success) error = res.ok ? `the base URL answered HTTP ${res.status}` : `${res.kind}: ${res.message}`;
  if (error !== null && credential !== null) error = redactText(error, credentialForms(credential, built.onWire)).text;
  return { success, latencyMs: res.durationMs, error };
}
