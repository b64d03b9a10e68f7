// The OpenAPI 3.1 document, generated from the same route declarations (and zod schemas) that
// validate requests.
import { z } from 'zod';
import type { RouteDef } from './route.ts';

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' } },
};

export const toOpenApiPath = (koaPath: string) => koaPath.replace(/[:*]([A-Za-z_]+)/g, '{$1}');

function jsonSchema(s: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

function parametersOf(def: RouteDef): unknown[] {
  const out: unknown[] = [];
  for (const [, name] of def.path.matchAll(/[:*]([A-Za-z_]+)/g)) {
    out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  if (def.query) {
    const schema = jsonSchema(def.query) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(schema.properties ?? {})) {
      out.push({ name, in: 'query', required: (schema.required ?? []).includes(name), schema: s });
    }
  }
  return out;
}

export function buildOpenApi(routes: RouteDef[], serverUrl: string, version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of routes) {
    const p = toOpenApiPath(def.path);
    const responses: Record<string, unknown> = {};
    for (const [code, description] of Object.entries(def.responses)) {
      const status = Number(code);
      responses[code] = status >= 400
        ? { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } }
        : { description };
    }
    responses['default'] = { description: 'Problem details', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
    paths[p] ??= {};
    paths[p][def.method.toLowerCase()] = {
      summary: def.summary,
      tags: [def.tag],
      operationId: `${def.method.toLowerCase()}${p.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      security: def.auth === 'public' ? [] : [{ bearerAuth: [] }],
      parameters: parametersOf(def),
      ...(def.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(def.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Vault API', version },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A JWT, or a personal xck_ API key' } },
      schemas: { Problem: problemSchema },
    },
  };
}
