// Every response shape is a zod schema registered here under a stable name. The OpenAPI document
// publishes them under components/schemas, routes refer to them by name, and the test HTTP helper
// validates every response against the schema its route declares.
import { z } from 'zod';

export const presenterSchemas = z.registry<{ id: string; description?: string }>();

/** Registers `schema` as the named response shape `id`. */
export function shape<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  presenterSchemas.add(schema, { id, ...(description ? { description } : {}) });
  return schema;
}

// Field types shared by the presenters.
export const timestamp = z.iso.datetime();
export const uuid = z.uuid();
/** Free-form JSON object (metadata, conditions, details). */
export const jsonObject = z.record(z.string(), z.unknown());

/** A timestamp the presenter may omit: optional, never null (reference: optional, not nullable). */
export const optionalTimestamp = timestamp.optional();

/** ISO 8601 of a Date or Postgres text timestamp; undefined for null, so the field is omitted. */
export function isoOrOmit(v: Date | string | null | undefined): string | undefined {
  if (v === null || v === undefined) return undefined;
  return (v instanceof Date ? v : new Date(v)).toISOString();
}

/** ISO 8601 of a timestamp that is always present. */
export function isoAlways(v: Date | string): string {
  return (v instanceof Date ? v : new Date(v)).toISOString();
}

/** `undefined` for null, so optional fields are omitted rather than sent as null. */
export const omitNull = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);
