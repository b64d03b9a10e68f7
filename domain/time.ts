/** Postgres timestamps arrive from raw queries as text; records as Date. Both become ISO 8601. */
export function iso(v: Date | string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  return (v instanceof Date ? v : new Date(v)).toISOString();
}
