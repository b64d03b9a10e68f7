// Ids are UUIDs. An id from a URL or body is checked before it reaches SQL, so lookups compare
// uuid to uuid and use the primary-key index (`id::text = $1` would scan the whole table).
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(s: string): boolean {
  return s.length === 36 && UUID_RE.test(s);
}
