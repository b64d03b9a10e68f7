// Integer fields of query strings and path parameters, checked on the raw text before zod
// coerces it. `Number()` accepts `1e10`, `0x10`, ` 5` and values past 2^31, which then overflow
// the `integer` column behind the field (a 500). Here such a field must be plain decimal digits
// within 32-bit range, whatever bounds its schema forgot; wider numbers need a string schema.
import type { z } from 'zod';
import type { InputFinding } from './safe-json.ts';

export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

/** Findings for integer fields of an object schema whose raw text is not a decimal int32. */
export function integerTextFindings(schema: z.ZodType, raw: unknown): InputFinding[] {
  const shape = objectShape(schema);
  if (!shape || raw === null || typeof raw !== 'object') return [];
  const findings: InputFinding[] = [];
  for (const [name, field] of Object.entries(shape)) {
    const text = (raw as Record<string, unknown>)[name];
    // Absent, empty or repeated values are left to the schema (required, default, wrong type).
    if (typeof text !== 'string' || text === '' || !isIntegerSchema(field)) continue;
    if (!isDecimalInt32(text)) findings.push({ field: name, message: `must be a whole number from ${INT32_MIN} to ${INT32_MAX}, in decimal digits` });
  }
  return findings;
}

export function isDecimalInt32(text: string): boolean {
  if (!/^-?\d{1,10}$/.test(text)) return false;
  const n = Number(text);
  return n >= INT32_MIN && n <= INT32_MAX;
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; shape?: Record<string, z.ZodType> };
const defOf = (s: z.ZodType) => (s as unknown as { def: Def }).def;

/** Wrappers that keep the wrapped schema's input type: look through them. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);

function unwrap(s: z.ZodType): z.ZodType {
  for (let d = defOf(s); ; d = defOf(s)) {
    if (WRAPPERS.has(d.type) && d.innerType) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in; // the input side decides what the text must be
    else return s;
  }
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> | null {
  const d = defOf(unwrap(schema));
  return d.type === 'object' && d.shape ? d.shape : null;
}

function isIntegerSchema(s: z.ZodType): boolean {
  const inner = unwrap(s);
  return defOf(inner).type === 'number' && (inner as unknown as { isInt?: boolean }).isInt === true;
}

/** The JSON Schema of a query field with the bounds this rule adds to integers (for the OpenAPI document). */
export function withInt32Bounds(s: Record<string, unknown>): Record<string, unknown> {
  if (s.type !== 'integer') return s;
  const max = typeof s.maximum === 'number' ? Math.min(s.maximum, INT32_MAX) : INT32_MAX;
  const min = typeof s.minimum === 'number' ? Math.max(s.minimum, INT32_MIN) : INT32_MIN;
  return { ...s, maximum: max, ...(typeof s.exclusiveMinimum === 'number' ? {} : { minimum: min }) };
}
