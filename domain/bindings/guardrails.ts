// The guardrails of one request, decided before anything is sent. Pure. Every rule that is set
// applies (the config's lists, the binding's guardrails, the agent's execution_guardrails); with
// no method list anywhere only GET is allowed, with no path list everything under the base URL.
// A refusal names the guardrail that refused, and carries a machine-readable
// `guardrail_violation` {reason_code, limit, attempted} like the reference's execute denials.
import { MAX_REQUEST_BODY_BYTES, type AgentGuardrails, type BindingGuardrails, type HttpConfig, type HttpMethod } from './binding-config.ts';
import { pathAllowed, type RequestPath } from './request-path.ts';

export type GuardrailRefusal = {
  status: 403 | 413;
  detail: string;
  violation: { reason_code: 'method_not_allowed' | 'path_not_allowed' | 'body_too_large'; limit?: unknown; attempted?: unknown };
};

export const DEFAULT_METHODS: readonly HttpMethod[] = ['GET'];
export const DEFAULT_PATHS: readonly string[] = ['/**'];

type Rules = { config: HttpConfig; binding: BindingGuardrails; agent: AgentGuardrails };

/** The method lists in force, each with the name of the setting it comes from. */
function methodLists(r: Rules): [string, readonly HttpMethod[]][] {
  const lists: [string, readonly HttpMethod[] | undefined][] = [
    ['config.allowed_methods', r.config.allowed_methods],
    ['guardrails.allowed_methods', r.binding.allowed_methods],
    ['execution_guardrails.allowed_methods (agent)', r.agent.allowed_methods],
  ];
  const set = lists.filter((l): l is [string, readonly HttpMethod[]] => l[1] !== undefined);
  return set.length > 0 ? set : [['allowed_methods (default: GET only)', DEFAULT_METHODS]];
}

function pathLists(r: Rules): [string, readonly string[]][] {
  const lists: [string, readonly string[] | undefined][] = [
    ['config.allowed_paths', r.config.allowed_paths],
    ['guardrails.allowed_paths', r.binding.allowed_paths],
  ];
  return lists.filter((l): l is [string, readonly string[]] => l[1] !== undefined);
}

/** The largest body allowed. */
export function maxBodyBytes(r: Pick<Rules, 'binding' | 'agent'>): number {
  return Math.min(r.binding.max_body_bytes ?? MAX_REQUEST_BODY_BYTES, r.agent.max_body_bytes ?? MAX_REQUEST_BODY_BYTES, MAX_REQUEST_BODY_BYTES);
}

export function checkMethod(r: Rules, method: HttpMethod): GuardrailRefusal | null {
  for (const [name, allowed] of methodLists(r)) {
    if (!allowed.includes(method)) {
      return {
        status: 403, detail: `${name}: method ${method} is not allowed by this binding (allowed: ${allowed.join(', ')})`,
        violation: { reason_code: 'method_not_allowed', limit: allowed, attempted: method },
      };
    }
  }
  return null;
}

export function checkPath(r: Rules, path: RequestPath): GuardrailRefusal | null {
  for (const [name, patterns] of pathLists(r)) {
    if (!pathAllowed(patterns, path)) {
      return {
        status: 403, detail: `${name}: path ${path.encoded} is outside the binding's allowed paths (${patterns.join(', ')})`,
        violation: { reason_code: 'path_not_allowed', limit: patterns, attempted: path.encoded },
      };
    }
  }
  return null;
}

/** A path that could not be made canonical (traversal, encoded slashes …) is refused like one outside the patterns. */
export function pathRefusal(reason: string): GuardrailRefusal {
  return { status: 403, detail: `allowed_paths: the path is refused: ${reason}`, violation: { reason_code: 'path_not_allowed' } };
}

export function checkBody(r: Rules, bytes: number): GuardrailRefusal | null {
  const max = maxBodyBytes(r);
  if (bytes <= max) return null;
  return {
    status: 413, detail: `max_body_bytes: the request body is ${bytes} bytes; this binding allows at most ${max}`,
    violation: { reason_code: 'body_too_large', limit: max, attempted: bytes },
  };
}

/** Method, then path, then body size: the first refusal, or null. */
export function checkGuardrails(r: Rules, method: HttpMethod, path: RequestPath, bodyBytes: number): GuardrailRefusal | null {
  return checkMethod(r, method) ?? checkPath(r, path) ?? checkBody(r, bodyBytes);
}
