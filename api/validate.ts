// Turns zod failures into a 400 that names every offending field.
import type { z } from 'zod';
import { badRequest } from '../domain/errors.ts';

export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, where: 'body' | 'query' | 'path'): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const errors = r.error.issues.map((i) => ({
    field: i.path.length > 0 ? i.path.join('.') : where,
    message: i.code === 'invalid_type' && i.input === undefined ? 'is required' : i.message,
  }));
  const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  throw badRequest(where === 'body' && value === undefined ? `Request body is required (${detail})` : detail, { errors });
}
