// The audit chain: each event's integrity_hash is HMAC-SHA256 (key derived from the root key)
// over its predecessor's hash and its own fields. HMAC rather than a bare hash, so someone with
// write access to the database alone cannot rebuild a consistent chain after editing it.
import { createHmac, type KeyObject } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

export type ChainedFields = {
  id: string;
  chainKey: string;
  orgId: string | null;
  action: string;
  actorType: string | null;
  actorId: string | null;
  resourceType: string | null;
  resourceId: string | null;
  details: Record<string, unknown>;
  ipAddress: string | null;
  requestId: string | null;
  createdAt: Date;
};

/** JSON with object keys sorted, so the text survives a round trip through jsonb. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

/** `detailsJson` is canonicalJson(e.details); a writer that already has it passes it in. */
export function chainHash(key: KeyObject, prevHash: string, e: ChainedFields, detailsJson = canonicalJson(e.details)): string {
  const parts = [prevHash, e.id, e.chainKey, e.orgId ?? '', e.action, e.actorType ?? '', e.actorId ?? '',
    e.resourceType ?? '', e.resourceId ?? '', e.ipAddress ?? '', e.requestId ?? '', e.createdAt.toISOString(), detailsJson];
  return createHmac('sha256', key).update(parts.join('\u001f')).digest('hex');
}
