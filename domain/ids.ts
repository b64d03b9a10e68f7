// Ids are UUIDs. An id from a URL or body is checked before it reaches SQL, so lookups compare
// uuid to uuid and use the primary-key index (`id::text = $1` would scan the whole table).
import { createHash } from 'node:crypto';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(s: string): boolean {
  return s.length === 36 && UUID_RE.test(s);
}

/**
 * A UUID derived from a name (RFC 9562 version 8, SHA-256 based): the same trigger occurrence
 * (an event and an automation, a schedule tick, an idempotency key) always names the same run.
 */
export function derivedUuid(name: string): string {
  const h = createHash('sha256').update(name, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
