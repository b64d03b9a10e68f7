// Every response an integration test receives is checked here (test/helpers/api.ts calls it):
//  - against the schema its route declares in our own OpenAPI document (a 2xx body matches the
//    route's presenter schema, a 204 has no body, an error is problem details), so a response
//    shape cannot drift from what the document promises;
//  - against the 1Claw reference document (../shared/reference/openapi.yaml) for operations it
//    also describes, so clients written for it keep working. Deliberate differences are listed
//    in REFERENCE_DIFFERENCES (and in the README).
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import YAML from 'yaml';
import { projectRoot } from './stack.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/** `METHOD /openapi/path status` answered differently from the reference on purpose, and why. */
export const REFERENCE_DIFFERENCES: Record<string, string> = {
  'POST /v1/auth/change-password 200': 'spec §4.3 wins: 200 {message: "Password changed successfully"} (the reference says 204)',
  'DELETE /v1/auth/me 202': 'deletion runs in the background: 202 {message, status: "deleting"} (the reference says 204)',
  'GET /v1/health 200': 'spec §4.1 wins: status is "ok" (the reference says "healthy" or "degraded")',
  'POST /v1/agents/{agent_id}/transactions 202': "issue 31 §4: above the agent's tx_approval_threshold_eth the transaction waits, unsigned, for a human's approval (status awaiting_approval, approval_id)",
};

/**
 * `METHOD /openapi/path status` that may also answer another schema of the reference on purpose
 * (the body must match one of the two), and why. Listed in the README too.
 */
export const REFERENCE_ALTERNATIVE_BODIES: Record<string, { schema: string; why: string }> = {
  'POST /v1/auth/google 200': { schema: 'LoginResponse', why: 'issue 28: an account with TOTP on answers {mfa_required, mfa_token} as password login does' },
};

/**
 * Values we add to an enum of the reference on purpose, and why (the rest of the schema is still
 * checked). Listed in the README too.
 */
export const REFERENCE_ENUM_ADDITIONS: { schema: string; property: string; values: string[]; why: string }[] = [
  { schema: 'TransactionResponse', property: 'status', values: ['confirmed'], why: 'issue 13: a broadcast transaction whose receipt says success is confirmed (failed when it reverted)' },
  {
    schema: 'TransactionResponse', property: 'status', values: ['awaiting_approval', 'rejected'],
    why: "issue 31 §4: a transaction above the agent's tx_approval_threshold_eth waits for an approval, and ends rejected when it is refused or expires",
  },
];

function addEnumValues(doc: any): void {
  for (const a of REFERENCE_ENUM_ADDITIONS) {
    const prop = doc.components?.schemas?.[a.schema]?.properties?.[a.property];
    if (!Array.isArray(prop?.enum)) throw new Error(`REFERENCE_ENUM_ADDITIONS: ${a.schema}.${a.property} is not an enum of the reference`);
    prop.enum.push(...a.values);
  }
}

type Operation = { method: string; template: string; regex: RegExp; params: number; responses: Record<string, any> };
type Doc = { id: string; ops: Operation[] };

const WILDCARD_PARAMS = new Set(['path', 'rest']);

function operationsOf(id: string, doc: any): Doc {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries<any>(doc.paths ?? {})) {
    const pattern = template.replace(/[.+?^$()|[\]\\]/g, '\\$&')
      .replace(/\{([^}]+)\}/g, (_m, name: string) => (WILDCARD_PARAMS.has(name) ? '(.+)' : '([^/]+)'));
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push({ method: method.toUpperCase(), template, regex: new RegExp(`^${pattern}$`), params: (template.match(/\{/g) ?? []).length, responses: op.responses ?? {} });
    }
  }
  // Literal segments win over parameters (/v1/agents/me before /v1/agents/{agent_id}).
  ops.sort((a, b) => a.params - b.params);
  return { id, ops };
}

/** OpenAPI 3.0's `nullable: true`, which the reference still uses, as JSON Schema 2020-12. */
function nullableToTypes(node: any): void {
  if (Array.isArray(node)) { node.forEach(nullableToTypes); return; }
  if (!node || typeof node !== 'object') return;
  if (node.nullable === true) {
    if (typeof node.type === 'string') node.type = [node.type, 'null'];
    else if (node.$ref || node.allOf || node.oneOf || node.anyOf) {
      const { nullable: _n, ...rest } = node;
      for (const k of Object.keys(node)) delete node[k];
      node.anyOf = [rest, { type: 'null' }];
    }
    delete node.nullable;
  }
  for (const v of Object.values(node)) nullableToTypes(v);
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

class Checker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  readonly ours: Doc;
  readonly reference: Doc;

  constructor(oursDoc: any, referenceDoc: any) {
    addFormats(this.ajv);
    nullableToTypes(referenceDoc);
    addEnumValues(referenceDoc);
    this.ajv.addSchema(oursDoc, 'ours');
    this.ajv.addSchema(referenceDoc, 'reference');
    this.ours = operationsOf('ours', oursDoc);
    this.reference = operationsOf('reference', referenceDoc);
  }

  validator(ref: string): ValidateFunction {
    let v = this.compiled.get(ref);
    if (!v) { v = this.ajv.compile({ $ref: ref }); this.compiled.set(ref, v); }
    return v;
  }

  errorsOf(v: ValidateFunction): string {
    return this.ajv.errorsText(v.errors, { separator: '; ' });
  }
}

let checker: Promise<Checker> | undefined;

function load(apiUrl: string): Promise<Checker> {
  checker ??= (async () => {
    const ours = await (await fetch(`${apiUrl}/v1/openapi.json`)).json();
    const reference = YAML.parse(fs.readFileSync(path.join(projectRoot, '..', 'shared', 'reference', 'openapi.yaml'), 'utf8'));
    return new Checker(ours, reference);
  })();
  return checker;
}

export type Answer = { method: string; url: string; status: number; contentType: string | null; body: unknown; text: string };

/** Problems with `a`, as sentences; empty when it matches both documents. */
export async function responseProblems(apiUrl: string, a: Answer): Promise<string[]> {
  const c = await load(apiUrl);
  const urlPath = new URL(a.url, apiUrl).pathname;
  const where = `${a.method} ${urlPath} -> ${a.status}`;
  const problems: string[] = [];
  const op = c.ours.ops.find((o) => o.method === a.method && o.regex.test(urlPath));
  if (a.status >= 400) {
    if (!a.contentType?.startsWith('application/problem+json')) problems.push(`${where}: an error must be problem details, got ${a.contentType}`);
    const v = c.validator('ours#/components/schemas/Problem');
    if (!v(a.body)) problems.push(`${where}: problem details do not match: ${c.errorsOf(v)}`);
    return problems;
  }
  if (!op) return [`${where}: answered ${a.status} on a path the OpenAPI document does not describe`];
  const declared = op.responses[String(a.status)];
  if (!declared) return [`${where}: status ${a.status} is not declared for ${op.method} ${op.template}`];
  const schemaAt = declared.content?.['application/json']?.schema ? pointer('paths', op.template, op.method.toLowerCase(), 'responses', String(a.status), 'content', 'application/json', 'schema') : null;
  if (!schemaAt) {
    if (a.text !== '') problems.push(`${where}: declared without a body, but answered one`);
  } else {
    const v = c.validator(`ours#/${schemaAt}`);
    if (!v(a.body)) problems.push(`${where}: body does not match its declared schema: ${c.errorsOf(v)}`);
  }
  problems.push(...referenceProblems(c, a, urlPath, where));
  return problems;
}

function referenceProblems(c: Checker, a: Answer, urlPath: string, where: string): string[] {
  const ref = c.reference.ops.find((o) => o.method === a.method && o.regex.test(urlPath));
  if (!ref) return []; // an operation the reference does not have
  const key = `${a.method} ${ref.template} ${a.status}`;
  if (REFERENCE_DIFFERENCES[key]) { recordCovered(ref); return []; }
  let declared = ref.responses[String(a.status)];
  if (!declared) return [`${where}: the reference answers ${Object.keys(ref.responses).join('/')} for ${ref.method} ${ref.template}, not ${a.status}`];
  if (declared.$ref) declared = { resolved: true };
  if (!declared.content?.['application/json']?.schema) { recordCovered(ref); return []; }
  const v = c.validator(`reference#/${pointer('paths', ref.template, ref.method.toLowerCase(), 'responses', String(a.status), 'content', 'application/json', 'schema')}`);
  const alternative = REFERENCE_ALTERNATIVE_BODIES[key];
  if (!v(a.body) && !(alternative && c.validator(`reference#/components/schemas/${alternative.schema}`)(a.body))) {
    return [`${where}: body does not match the reference schema of ${ref.method} ${ref.template}: ${c.errorsOf(v)}`];
  }
  recordCovered(ref);
  return [];
}

/** Reference operations whose success answer some test had checked (global-teardown reads it). */
export const coverageFile = () => path.join(process.env.TEST_DATA_DIR ?? '/tmp', 'reference-covered.txt');
function recordCovered(ref: Operation): void {
  if (process.env.TEST_DATA_DIR) fs.appendFileSync(coverageFile(), `${ref.method} ${ref.template}\n`);
}

/** Operations the reference only describes a success of that the specification rules out. */
const NEVER_SUCCEEDS: Record<string, string> = {
  'POST /v1/auth/refresh': 'spec §4.2: always 400 (refresh tokens are not implemented)',
};

/**
 * Reference operations this service implements (our document has a route that serves the same
 * method and path) whose success answer no test checked against the reference.
 */
export function uncoveredReferenceOperations(oursDoc: any, covered: Set<string>): string[] {
  const ours = operationsOf('ours', oursDoc);
  const reference = operationsOf('reference', YAML.parse(fs.readFileSync(path.join(projectRoot, '..', 'shared', 'reference', 'openapi.yaml'), 'utf8')));
  // Same operation: same method and path once parameter names are ignored; a secret path (ours is
  // a wildcard `{path}` or `{rest}`, the reference's `{path}` or `{path}/{version}`) is one `{*}`.
  const norm = (t: string) => t.replace(/\{path\}(\/\{version\})?|\{rest\}/g, '{*}').replace(/\{[^}*]+\}/g, '{}');
  const served = new Set(ours.ops.map((o) => `${o.method} ${norm(o.template)}`));
  return reference.ops
    .filter((r) => served.has(`${r.method} ${norm(r.template)}`))
    .map((r) => `${r.method} ${r.template}`)
    .filter((k) => !covered.has(k) && !NEVER_SUCCEEDS[k]);
}

/** Throws on any problem, unless RESPONSE_CHECK=report (then they are appended to a file to review). */
export async function checkResponse(apiUrl: string, a: Answer): Promise<void> {
  const problems = await responseProblems(apiUrl, a);
  if (problems.length === 0) return;
  if (process.env.RESPONSE_CHECK === 'report') {
    fs.appendFileSync(process.env.RESPONSE_CHECK_FILE ?? '/tmp/response-check.txt', problems.join('\n') + '\n');
    return;
  }
  throw new Error(`response check failed:\n${problems.join('\n')}`);
}
