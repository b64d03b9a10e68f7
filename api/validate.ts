// Turns input that breaks a rule into a 400 that names every offending field: first the rules
// every input obeys whatever its schema (api/input/safe-json.ts, api/input/query-integers.ts),
// then the route's zod schema.
import type { z } from 'zod';
import { badRequest, type Problem } from '../domain/errors.ts';
import { findUnsafeInput, type InputFinding } from './input/safe-json.ts';
import { integerTextFindings } from './input/query-integers.ts';

export type InputPlace = 'body' | 'query' | 'path';

export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, where: InputPlace): T {
  // Bodies were checked as they were read (api/body.ts); the URL's parts are checked here.
  if (where !== 'body') {
    rejectUnsafeInput(value, where);
    const wide = integerTextFindings(schema, value);
    if (wide.length > 0) throw invalid(wide, where, value);
  }
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw invalid(r.error.issues.map((i) => ({
    field: i.path.length > 0 ? i.path.join('.') : where,
    message: i.code === 'invalid_type' && i.input === undefined ? 'is required' : i.message,
  })), where, value);
}

/** 400 for text Postgres cannot store, or nesting too deep to walk, anywhere in the input. */
export function rejectUnsafeInput(value: unknown, where: InputPlace): void {
  const findings = findUnsafeInput(value, where);
  if (findings.length > 0) throw invalid(findings, where, value);
}

function invalid(errors: InputFinding[], where: InputPlace, value: unknown): Problem {
  const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return badRequest(where === 'body' && value === undefined ? `Request body is required (${detail})` : detail, { errors });
}
