// Malformed request bodies, derived from a route's request schema in our OpenAPI document: a
// well-formed base body (every property filled), then one change at a time at every property
// (NUL, lone surrogates, deep nesting, huge numbers, wrong types, arrays for objects, very long
// strings, Unicode edge cases), plus changes to the body as a whole. Each case says whether the
// service must refuse it (`mustRefuse`) or only must not fail (no 5xx).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';

type Schema = Record<string, any>;
/** Values to use for properties of these names (ids of records the caller owns, for example). */
export type Known = Record<string, unknown>;
export type FuzzCase = { name: string; raw: string; mustRefuse: boolean };

/** Text no input rule lets through: the service must answer 400 wherever it appears. */
const UNSAFE_STRINGS: Record<string, string> = {
  'NUL': '\u0000',
  'NUL inside': 'a\u0000b',
  'lone high surrogate': '\ud800',
  'lone low surrogate': 'x\udfff',
  'reversed pair': '\udc00\ud800',
};

/** Text that is odd but valid: the service may accept it, and must not fail on it. */
const ODD_STRINGS: Record<string, string> = {
  'empty': '',
  'very long': 'a'.repeat(100_000),
  'emoji': '🔑\u{1F469}\u200D\u{1F4BB}',
  'combining (not NFC)': 'A\u030a',
  'right-to-left override': '\u202egnp.exe',
  'BOM': '\ufeffx',
  'noncharacters': '\uffff\ufffe\u{10ffff}',
  'C1 control': 'a\u0085b',
  'other controls': '\u0001\u001f\u007f',
  'dot segments': '../../etc/passwd',
  'percent NUL': '%00',
};

/** JSON text (raw, so numbers JSON.stringify cannot write are included) of values of every type. */
const OTHER_VALUES: Record<string, string> = {
  'zero': '0', 'negative': '-1', 'fraction': '1.5', 'negative zero': '-0',
  'int32 max + 1': '2147483648', 'int32 min - 1': '-2147483649', '2^53 + 1': '9007199254740993',
  'huge integer': '123456789012345678901234567890', 'exponent': '1e10', 'overflow to Infinity': '1e400',
  'true': 'true', 'null': 'null', 'empty array': '[]', 'empty object': '{}', 'nested array': '[[[]]]',
  'string': '"a string"', 'array of strings': '["a","b"]',
};

const nested = (levels: number, open: string, close: string, inner = '1') => open.repeat(levels) + inner + close.repeat(levels);
const DEEP_VALUES: Record<string, string> = {
  'objects nested 8,000 deep': nested(8000, '{"a":', '}'),
  'arrays nested 8,000 deep': nested(8000, '[', ']'),
  'objects nested 33 deep': nested(33, '{"a":', '}'),
};

const UNSAFE_KEYS: Record<string, string> = {
  'NUL key': '{"a\\u0000":1}', 'lone surrogate key': '{"\\ud800":"x"}', 'NUL key, nested': '{"ok":{"\\u0000":{}}}',
};
const ODD_KEYS: Record<string, string> = {
  '__proto__ key': '{"__proto__":{"admin":true}}', 'constructor key': '{"constructor":{"prototype":1}}',
  'empty key': '{"":1}', 'many keys': `{${Array.from({ length: 2000 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
};

/** A value that satisfies `s` as far as a generic reading of JSON Schema goes. */
export function sampleOf(s: Schema, name = '', known: Known = {}): unknown {
  const fields = { ...KNOWN_FIELDS, ...known };
  if (name in fields && s.type !== 'array') return fields[name];
  if (s.anyOf) return sampleOf(s.anyOf.find((o: Schema) => o.type !== 'null') ?? s.anyOf[0], name, known);
  if (s.enum) return s.enum[0];
  if (s.const !== undefined) return s.const;
  switch (s.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries<Schema>(s.properties ?? {})) out[k] = sampleOf(v, k, known);
      return out;
    }
    case 'array': return Array.from({ length: Math.max(1, s.minItems ?? 0) }, () => sampleOf(s.items ?? {}, name, known));
    case 'integer': case 'number': return Math.min(Math.max(s.minimum ?? 1, 1), s.maximum ?? Infinity);
    case 'boolean': return true;
    case 'string': return sampleString(s, name);
    default: return 'fuzz';
  }
}

/**
 * Values the domain checks beyond the schema, by property name, so that a base body passes them
 * and the odd values put into it reach the handler and Postgres (and no rule locks the caller out).
 */
const KNOWN_FIELDS: Record<string, unknown> = {
  cidr: '203.0.113.0/24', ip_allowlist: '203.0.113.0/24', rule_type: 'block', timezone: 'UTC', start_hour: 0, end_hour: 24,
};

function sampleString(s: Schema, name: string): string {
  if (s.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
  if (s.format === 'uuid') return randomUUID();
  if (/email/.test(name)) return `fuzz-${randomUUID().slice(0, 8)}@example.com`;
  const candidates = ['fuzz-value-long-enough', '123456', '1', 'eth', 'x'];
  const fits = (c: string) => (!s.pattern || new RegExp(s.pattern, 'u').test(c)) && c.length <= (s.maxLength ?? Infinity);
  const base = candidates.find(fits) ?? 'fuzz';
  return base.padEnd(s.minLength ?? 0, 'z');
}

type Slot = { path: (string | number)[]; schema: Schema };

/** Every property (and the first item of every array) of the base body, with its schema. */
function slotsOf(s: Schema, value: unknown, path: (string | number)[] = []): Slot[] {
  const out: Slot[] = [];
  const inner = s.anyOf?.find((o: Schema) => o.type !== 'null') ?? s;
  if (inner.type === 'object' && value && typeof value === 'object') {
    for (const [k, v] of Object.entries<Schema>(inner.properties ?? {})) {
      out.push({ path: [...path, k], schema: v }, ...slotsOf(v, (value as Record<string, unknown>)[k], [...path, k]));
    }
  } else if (inner.type === 'array' && Array.isArray(value) && value.length > 0) {
    out.push({ path: [...path, 0], schema: inner.items ?? {} }, ...slotsOf(inner.items ?? {}, value[0], [...path, 0]));
  }
  return out;
}

/** The base body as JSON text with the value at `path` replaced by the JSON text `raw`. */
function withRaw(base: unknown, path: (string | number)[], raw: string): string {
  const marker = `__fuzz_${randomUUID()}__`;
  const copy = structuredClone(base) as any;
  let at = copy;
  for (const p of path.slice(0, -1)) at = at[p];
  at[path[path.length - 1]!] = marker;
  return JSON.stringify(copy).replace(JSON.stringify(marker), () => raw);
}

/** JSON types a value of `s` may have (empty: anything). */
function allowedTypes(s: Schema): Set<string> {
  if (s.anyOf) return new Set(s.anyOf.flatMap((o: Schema) => [...allowedTypes(o)]));
  if (s.enum) return new Set(s.enum.map((v: unknown) => (v === null ? 'null' : typeof v)));
  if (!s.type) return new Set();
  return new Set([s.type === 'integer' ? 'number' : s.type]);
}

/** Whether the schema at a slot clearly refuses the JSON text `raw` (a type it does not allow). */
function schemaRefuses(s: Schema, raw: string): boolean {
  const allowed = allowedTypes(s);
  if (allowed.size === 0) return false;
  const v = JSON.parse(raw);
  const type = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
  return !allowed.has(type);
}

/** Every case for a route whose request body follows `schema`. */
export function fuzzCases(schema: Schema, known: Known = {}): FuzzCase[] {
  const base = sampleOf(schema, '', known);
  const cases: FuzzCase[] = [{ name: 'the base body', raw: JSON.stringify(base), mustRefuse: false }];
  const put = (slot: Slot, what: string, raw: string, mustRefuse: boolean) =>
    cases.push({ name: `${slot.path.join('.')}: ${what}`, raw: withRaw(base, slot.path, raw), mustRefuse });
  for (const slot of slotsOf(schema, base)) {
    for (const [what, s] of Object.entries(UNSAFE_STRINGS)) put(slot, what, JSON.stringify(s), true);
    for (const [what, s] of Object.entries(ODD_STRINGS)) put(slot, what, JSON.stringify(s), false);
    for (const [what, raw] of Object.entries(OTHER_VALUES)) put(slot, what, raw, schemaRefuses(slot.schema, raw));
    for (const [what, raw] of Object.entries(DEEP_VALUES)) put(slot, what, raw, true);
    for (const [what, raw] of Object.entries(UNSAFE_KEYS)) put(slot, what, raw, true);
    for (const [what, raw] of Object.entries(ODD_KEYS)) put(slot, what, raw, false);
  }
  const whole = (name: string, raw: string, mustRefuse: boolean) => cases.push({ name: `whole body: ${name}`, raw, mustRefuse });
  whole('an array of the base body', JSON.stringify([base]), true);
  whole('a string', '"body"', true);
  whole('a number', '42', true);
  whole('null', 'null', true);
  for (const [what, raw] of Object.entries(DEEP_VALUES)) whole(what, raw, true);
  for (const key of ['a\u0000', '\ud800']) whole(`an extra key ${JSON.stringify(key)}`, JSON.stringify({ ...(base as object), [key]: 1 }), true);
  whole('duplicate keys', JSON.stringify({ dup: 1, ...(base as object) }).replace(/^\{/, '{"dup":2,'), false);
  return cases;
}

/** Text units for random strings: any code unit, NUL and lone surrogates included. */
const anyUnit = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u0000', '\u202e', '\ufeff', '\u0301'),
);

/** Random bodies: the base body with random JSON (random text included) at random properties. */
export function randomBodies(schema: Schema, known: Known = {}): fc.Arbitrary<unknown> {
  const base = sampleOf(schema, '', known) as Record<string, unknown>;
  const anyJson = fc.jsonValue({ maxDepth: 4, stringUnit: anyUnit });
  const props = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
  if (props.length === 0 || base === null || typeof base !== 'object') return anyJson;
  const field = fc.record(Object.fromEntries(props.map((p) => [p, fc.oneof(fc.constant(base[p]), anyJson)])), { requiredKeys: [] });
  return fc.oneof({ arbitrary: field, weight: 4 }, { arbitrary: anyJson, weight: 1 });
}
