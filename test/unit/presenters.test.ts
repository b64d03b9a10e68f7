// Exactly one presenter can emit a secret value. Every response shape is a registered zod schema
// (api/presenters/*); responses are checked against the schema their route declares, and object
// schemas admit no extra properties, so a shape without a `value` property cannot carry one. This
// test proves that only SecretValue has such a property, at any depth.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const presenterDir = path.join(__dirname, '..', '..', 'api', 'presenters');
let registry: typeof import('../../api/presenters/registry.ts')['presenterSchemas'];

beforeAll(async () => {
  for (const f of fs.readdirSync(presenterDir).filter((f) => f.endsWith('.ts'))) await import(path.join(presenterDir, f));
  registry = (await import('../../api/presenters/registry.ts')).presenterSchemas;
});

/** Every property name in a JSON Schema (refs resolved within `all`), at any depth. */
function propertyNames(schema: unknown, all: Record<string, unknown>, seen = new Set<unknown>()): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const n = node as Record<string, unknown>;
    if (typeof n.$ref === 'string') walk(all[n.$ref.replace('#/components/schemas/', '')]);
    if (n.properties && typeof n.properties === 'object') for (const k of Object.keys(n.properties)) names.add(k);
    for (const v of Object.values(n)) walk(v);
  };
  walk(schema);
  return names;
}

// Agent memory entries carry a `value` too: agent data the agent itself wrote (the run engine
// refuses to put a secret it read into memory), shown to the agent and its organization's admins.
// SharedSecret is what opening a share returns (GET /v1/share/{id}). A platform setting (Setting,
// SettingsList: GET/PUT /v1/admin/settings, the reference's field name) is an operator's plain
// configuration string, shown to operators only; docs/configuration.md says never to put a secret in one.
test('only the SecretValue, SharedSecret, agent memory and platform setting presenters have a value property', () => {
  const { schemas } = z.toJSONSchema(registry, { io: 'output', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  expect(Object.keys(schemas).length).toBeGreaterThan(10);
  const carrying = Object.entries(schemas).filter(([, s]) => propertyNames(s, schemas).has('value')).map(([id]) => id);
  expect(carrying.sort()).toEqual(['MemoryEntry', 'MemoryEntryList', 'MemorySearchResults', 'SecretValue', 'Setting', 'SettingsList', 'SharedSecret']);
});

test('object shapes admit no extra properties, so no response can carry an undeclared field', () => {
  const { schemas } = z.toJSONSchema(registry, { io: 'output', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  // Documents that embed foreign JSON (problem extras, JWKs, the OpenAPI document) are open by design.
  const open = new Set(['Problem', 'Jwks', 'OpenApiDocument']);
  type Shape = { additionalProperties?: unknown; anyOf?: Shape[]; oneOf?: Shape[]; type?: string; items?: Shape & { $ref?: string } };
  for (const [id, s] of Object.entries(schemas)) {
    if (open.has(id)) continue;
    // A bare list (the reference's GET /v1/platform/apps) is closed when its items are: a registered
    // shape (checked by this loop in its turn) or a closed object.
    const items = (s as Shape).type === 'array' ? (s as Shape).items : undefined;
    if (items?.$ref !== undefined) {
      expect(Object.keys(schemas)).toContain(items.$ref.split('/').pop());
      continue;
    }
    // A union (LoginResponse: a token or an MFA challenge) is closed when every one of its shapes is.
    const union = (s as Shape).anyOf ?? (s as Shape).oneOf;
    const shapes = items ? [[`${id}[]`, items] as const] : union ? union.map((b, i) => [`${id}[${i}]`, b] as const) : [[id, s as Shape] as const];
    for (const [name, shape] of shapes) expect({ name, additionalProperties: shape.additionalProperties }).toEqual({ name, additionalProperties: false });
  }
});
