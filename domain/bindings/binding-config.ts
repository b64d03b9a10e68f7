// What a binding stores and what an execution asks for, as zod schemas shared by the routes (400s
// that name the field) and the executor (automation steps send the same params). Strict: an
// unknown key in a config, a guardrail or a request is refused, never dropped, since a misspelt
// guardrail (`max_request_per_minute`) silently ignored would be a limit that is not there.
//
// http config:
//   base_url         https (http only to an OUTBOUND_ALLOW_CIDRS address literal, as webhooks);
//                    no query, fragment or credentials; its path is a prefix of every request.
//   allowed_methods  methods the agent may use (default GET only).
//   allowed_paths    path patterns under the base URL (default `/**`: everything under it).
//   headers          static, non-secret headers sent on every request (shown in the binding).
//   auth             how the credential is added: bearer (Authorization: Bearer …), header
//                    (`name`, optional `prefix`), query (`name`), basic (`username`; the
//                    credential is the password). Default bearer when a credential is set.
//   timeout_ms       total time of a request (default 10000, at most 30000).
// guardrails (binding) and execution_guardrails (agent): allowed_methods, allowed_paths (binding
// only), max_body_bytes, max_requests_per_minute. Every rule that is set applies: a request must
// pass the config's lists, the binding's guardrails and the agent's.
import { z } from 'zod';
import { compilePathPattern } from './request-path.ts';

export const BINDING_TYPES = ['http', 'graphql', 'postgres', 'mysql', 'redis', 'grpc', 'smtp', 'cloud_sdk', 's3', 'custom'] as const;
export type BindingType = (typeof BINDING_TYPES)[number];
/** Types that work today; the others are refused by name. */
export const SUPPORTED_BINDING_TYPES: readonly BindingType[] = ['http'];

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Hard ceilings whatever the guardrails say: the api's body limit and the outbound client's time. */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;
export const MAX_TIMEOUT_MS = 30_000;
export const DEFAULT_TIMEOUT_MS = 10_000;

const method = z.string().trim().toUpperCase()
  .pipe(z.enum(HTTP_METHODS, { message: `must be one of ${HTTP_METHODS.join(', ')}` }));
const methods = z.array(method).min(1).max(HTTP_METHODS.length).transform((m) => [...new Set(m)]);

const pathPattern = z.string().superRefine((s, ctx) => {
  const c = compilePathPattern(s);
  if (!c.ok) ctx.addIssue({ code: 'custom', message: c.reason });
});

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
export const headerName = z.string().regex(HEADER_NAME, { message: 'must be an HTTP header name' });
export const headerValue = z.string().max(4096).regex(/^[^\r\n\u0000]*$/, { message: 'must not contain CR, LF or NUL' });
/** Headers the outbound client sets itself, which nobody may choose. */
export const OWNED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'keep-alive', 'proxy-authorization', 'proxy-connection']);

const headers = z.record(headerName, headerValue)
  .refine((h) => Object.keys(h).length <= 50, { message: 'at most 50 headers' })
  .refine((h) => Object.keys(h).every((n) => !OWNED_HEADERS.has(n.toLowerCase())), { message: `may not set ${[...OWNED_HEADERS].join(', ')}` })
  .refine((h) => new Set(Object.keys(h).map((n) => n.toLowerCase())).size === Object.keys(h).length, { message: 'a header is named twice' });

const queryName = z.string().min(1).max(256).regex(/^[^\u0000-\u001f\u007f]+$/, { message: 'must not contain control characters' });

export const authSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('bearer') }),
  z.strictObject({ type: z.literal('header'), name: headerName, prefix: headerValue.max(100).optional() }),
  z.strictObject({ type: z.literal('query'), name: queryName }),
  z.strictObject({ type: z.literal('basic'), username: z.string().min(1).max(256).regex(/^[^:\r\n\u0000]*$/, { message: 'must not contain ":", CR, LF or NUL' }) }),
]);
export type AuthSpec = z.output<typeof authSchema>;

export const httpConfigSchema = z.strictObject({
  base_url: z.string().min(1).max(2048),
  allowed_methods: methods.optional(),
  allowed_paths: z.array(pathPattern).min(1).max(100).optional(),
  headers: headers.optional(),
  auth: authSchema.optional(),
  timeout_ms: z.number().int().min(100).max(MAX_TIMEOUT_MS).optional(),
});
export type HttpConfig = z.output<typeof httpConfigSchema>;

const maxBody = z.number().int().min(0).max(MAX_REQUEST_BODY_BYTES);
const perMinute = z.number().int().min(1).max(1_000_000);

export const bindingGuardrailsSchema = z.strictObject({
  allowed_methods: methods.optional(),
  allowed_paths: z.array(pathPattern).min(1).max(100).optional(),
  max_body_bytes: maxBody.optional(),
  max_requests_per_minute: perMinute.optional(),
});
export type BindingGuardrails = z.output<typeof bindingGuardrailsSchema>;

export const agentGuardrailsSchema = z.strictObject({
  allowed_methods: methods.optional(),
  max_body_bytes: maxBody.optional(),
  max_requests_per_minute: perMinute.optional(),
});
export type AgentGuardrails = z.output<typeof agentGuardrailsSchema>;

const queryValue = z.union([z.string().max(4096), z.number(), z.boolean()]);

/** `params` of intent_type http_request. `body`: text as is, anything else sent as JSON. */
export const httpRequestParamsSchema = z.strictObject({
  method,
  path: z.string().min(1).max(2048),
  query: z.record(queryName, z.union([queryValue, z.array(queryValue).max(100)]))
    .refine((q) => Object.keys(q).length <= 100, { message: 'at most 100 query parameters' }).optional(),
  headers: headers.optional(),
  body: z.unknown().optional(),
});
export type HttpRequestParams = z.output<typeof httpRequestParamsSchema>;

export const INTENT_TYPES = ['http_request'] as const;
export type IntentType = (typeof INTENT_TYPES)[number];
