// The OpenAPI 3.1 document, generated from the same route declarations (input schemas) and
// presenter schemas (responses) that the service runs on. Every 2xx answer with a body refers to
// a registered presenter schema; every error refers to Problem.
import { z } from 'zod';
import type { RouteDef } from './route.ts';
import { presenterSchemas } from './presenters/registry.ts';
import './presenters/problem.ts';
import { withInt32Bounds } from './input/query-integers.ts';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const problemContent = { 'application/problem+json': { schema: ref('Problem') } };

export const toOpenApiPath = (koaPath: string) => koaPath.replace(/[:*]([A-Za-z_]+)/g, '{$1}');

function jsonSchema(s: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/** Every registered presenter schema, as components/schemas (refs between them preserved). */
function componentSchemas(): Record<string, unknown> {
  const { schemas } = z.toJSONSchema(presenterSchemas, { io: 'output', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(Object.entries(schemas).map(([id, s]) => {
    const { $schema: _s, $id: _i, ...rest } = s as Record<string, unknown>;
    return [id, rest];
  }));
}

function parametersOf(def: RouteDef): unknown[] {
  const out: unknown[] = [];
  for (const [, name] of def.path.matchAll(/[:*]([A-Za-z_]+)/g)) {
    out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  if (def.query) {
    const schema = jsonSchema(def.query) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(schema.properties ?? {})) {
      out.push({ name, in: 'query', required: (schema.required ?? []).includes(name), schema: withInt32Bounds(s as Record<string, unknown>) });
    }
  }
  return out;
}

function successResponse(def: RouteDef): Record<string, unknown> {
  const { status, description, schema } = def.success;
  if (status === 204) {
    if (schema) throw new Error(`${def.method} ${def.path}: a 204 answer has no body, but a schema is declared`);
    return { description };
  }
  if (!schema) throw new Error(`${def.method} ${def.path}: a ${status} answer needs a presenter schema`);
  const id = presenterSchemas.get(schema)?.id;
  if (!id) throw new Error(`${def.method} ${def.path}: its response schema is not registered (use shape() in api/presenters)`);
  // A redirect (a link opened in a browser) says where it goes.
  const headers = status === 302 ? { headers: { Location: { description: 'Where the browser goes next', schema: { type: 'string' } } } } : {};
  return { description, ...headers, content: { 'application/json': { schema: ref(id) } } };
}

export const operationIdOf = (method: string, openApiPath: string) =>
  `${method.toLowerCase()}${openApiPath.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;

/** `dashboardPrefix`: the same paths are also served under it (spec §9.3), a second server. */
/** Which credentials a route takes: none, a JWT or personal key, a platform app's key, or either. */
function securityOf(auth: RouteDef['auth']): Record<string, string[]>[] {
  switch (auth) {
    case 'public': return [];
    case 'platform': return [{ platformKey: [] }];
    case 'user_or_platform': return [{ bearerAuth: [] }, { platformKey: [] }];
    default: return [{ bearerAuth: [] }];
  }
}

export function buildOpenApi(routes: RouteDef[], serverUrl: string, version: string, dashboardPrefix: string | null = null) {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const def of routes) {
    const p = toOpenApiPath(def.path);
    tags.add(def.tag);
    const responses: Record<string, unknown> = { [String(def.success.status)]: successResponse(def) };
    for (const alt of def.success.also ?? []) responses[String(alt.status)] = { ...successResponse(def), description: alt.description };
    for (const [code, description] of Object.entries(def.errors ?? {})) responses[code] = { description, content: problemContent };
    if (def.auth !== 'public') responses['401'] ??= { description: 'Missing, invalid, expired or revoked credentials', content: problemContent };
    if (def.body || def.query || def.params) responses['400'] ??= { description: 'Invalid input', content: problemContent };
    // Counted against the monthly request quota when REQUEST_QUOTAS is on (api/pipeline/usage.ts).
    if (def.billable) responses['402'] ??= { description: "The organization's monthly request quota is used up", content: problemContent };
    // The global rate limit runs before every route, public ones included (api/app.ts).
    responses['429'] ??= { description: 'Too many requests: retry after the Retry-After header', content: problemContent };
    responses['default'] = { description: 'Problem details', content: problemContent };
    paths[p] ??= {};
    paths[p][def.method.toLowerCase()] = {
      summary: def.summary,
      description: def.summary,
      tags: [def.tag],
      operationId: operationIdOf(def.method, p),
      security: securityOf(def.auth),
      parameters: parametersOf(def),
      ...(def.body ? { requestBody: { required: !def.body.safeParse(undefined).success, content: { 'application/json': { schema: jsonSchema(def.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vault API',
      version,
      description: 'Secrets vault service for humans and AI agents: vaults, secrets, policies, agents and the audit log.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl }, ...(dashboardPrefix ? [{ url: `${serverUrl}${dashboardPrefix}`, description: 'The same API under the dashboard prefix' }] : [])],
    security: [{ bearerAuth: [] }],
    tags: [...tags].sort().map((name) => ({ name, description: `${name} operations` })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'A JWT, or a personal xck_ API key' },
        platformKey: { type: 'http', scheme: 'bearer', description: "A platform app's plt_ key (it reaches only the platform API)" },
      },
      schemas: componentSchemas(),
    },
  };
}
