// Secret responses. SecretValueSchema is the ONLY presenter that carries a secret value (the
// read routes use it); every other shape is metadata. test/unit/presenters.test.ts proves it.
import { z } from 'zod';
import { shape, timestamp, uuid, jsonObject, isoAlways, isoOrOmit, omitNull } from './registry.ts';
import type { SecretValue } from '../../domain/secrets/secret-read.ts';
import type { SecretMetaRow, VersionRow } from '../../domain/secrets/secret-repository.ts';
import type { WrittenVersion } from '../../domain/secrets/secret-write.ts';
import type { SecretPage } from '../../domain/secrets/secret-list.ts';

/** What every secret shape says about one version (metadata, never a value). */
const versionFields = {
  id: uuid,
  path: z.string(),
  type: z.string(),
  version: z.number().int(),
  metadata: jsonObject,
  description: z.string().optional(),
  created_at: timestamp,
  expires_at: timestamp.optional(),
};

/** A decrypted secret (reference SecretResponse). */
export const SecretValueSchema = shape('SecretValue', z.object({
  ...versionFields,
  value: z.string(),
  created_by: z.string(),
  cmek_encrypted: z.boolean(),
}), 'A decrypted secret version: the only response that carries a secret value');

export function presentSecretValue(s: SecretValue): z.output<typeof SecretValueSchema> {
  return {
    id: s.id, path: s.path, type: s.type, value: s.value, version: s.version, metadata: s.metadata,
    description: omitNull(s.description), created_by: s.createdBy, created_at: isoAlways(s.createdAt),
    expires_at: isoOrOmit(s.expiresAt), cmek_encrypted: s.cmekEncrypted,
  };
}

/** The version a write or rotation created (reference SecretCreatedResponse): never the value. */
export const SecretWrittenSchema = shape('SecretWritten', z.object({
  ...versionFields,
  max_access_count: z.number().int().optional(),
  rotation_policy: jsonObject.optional(),
}));

export function presentSecretWritten(w: WrittenVersion): z.output<typeof SecretWrittenSchema> {
  return {
    id: w.id, path: w.path, type: w.type, version: w.version, metadata: w.metadata, description: omitNull(w.description),
    created_at: isoAlways(w.created_at), expires_at: isoOrOmit(w.expires_at), max_access_count: omitNull(w.max_access_count),
    rotation_policy: omitNull(w.rotation_policy),
  };
}

/** A secret in a listing (reference SecretMetadataResponse): metadata only. */
export const SecretMetadataSchema = shape('SecretMetadata', z.object({
  ...versionFields,
  updated_at: timestamp,
  is_disabled: z.boolean(),
  is_expired: z.boolean(),
}));

export const SecretListSchema = shape('SecretList', z.object({
  secrets: z.array(SecretMetadataSchema),
  count: z.number().int(),
  next_cursor: z.string().nullable(),
}));

export function presentSecretList(page: SecretPage): z.output<typeof SecretListSchema> {
  const now = Date.now();
  return {
    secrets: page.secrets.map((r: SecretMetaRow) => ({
      id: r.id, path: r.path, type: r.type, version: r.current_version, metadata: r.metadata, description: omitNull(r.description),
      created_at: isoAlways(r.created_at), updated_at: isoAlways(r.updated_at), expires_at: isoOrOmit(r.expires_at),
      is_disabled: false, is_expired: r.expires_at !== null && new Date(r.expires_at).getTime() <= now,
    })),
    count: page.secrets.length,
    next_cursor: page.nextCursor,
  };
}

/** One version of a secret (reference SecretMetadataResponse): metadata only. */
export const SecretVersionSchema = shape('SecretVersion', z.object({
  ...versionFields,
  created_by: z.string(),
  is_disabled: z.boolean(),
}));

export const SecretVersionListSchema = shape('SecretVersionList', z.object({ versions: z.array(SecretVersionSchema) }));

export function presentSecretVersions(path: string, rows: VersionRow[]): z.output<typeof SecretVersionListSchema> {
  return {
    versions: rows.map((r) => ({
      id: r.id, path, type: r.type, version: r.version, metadata: r.metadata, description: omitNull(r.description), created_by: r.created_by,
      created_at: isoAlways(r.created_at), expires_at: isoOrOmit(r.expires_at), is_disabled: r.disabled_at !== null,
    })),
  };
}
