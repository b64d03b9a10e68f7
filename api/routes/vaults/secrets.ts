// Secrets (§4.4): PUT creates or updates (a new version each time), GET returns the decrypted
// value, DELETE is a soft delete, the list shows metadata only. Paths are canonicalized from the
// raw URL before any authorization; raw, per-segment-encoded and %2F-encoded slashes all work.
import { z } from 'zod';
import { route, json, type AppContext } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { loadCaller } from '../../../domain/policies/caller.ts';
import { decide } from '../../../domain/policies/access.ts';
import { loadVisibleVault } from '../../../domain/vaults/vault-repository.ts';
import { canonicalSecretPath, secretPathPrefix } from '../../../domain/paths/secret-path.ts';
import { writeSecret, softDeleteSecret } from '../../../domain/secrets/secret-write.ts';
import { readSecret } from '../../../domain/secrets/secret-read.ts';
import { listSecrets, listVersions } from '../../../domain/secrets/secret-list.ts';
import { secretTypeField, MAX_VALUE_BYTES, MAX_METADATA_BYTES, MAX_DESCRIPTION_LENGTH } from '../../../domain/secrets/secret-types.ts';
import { Problem, badRequest, forbidden, notFound } from '../../../domain/errors.ts';
import { iso } from '../../../domain/time.ts';
import type { ApiServices } from '../../services.ts';
import type { Principal } from '../../../domain/auth/principal.ts';

/** The raw (still percent-encoded) path tail after `/<kind>/` in this request's URL. */
function rawTail(ctx: AppContext, kind: string): string {
  const m = new RegExp(`^/v1/vaults/[^/]+/${kind}/(.+)$`).exec(ctx.path);
  if (!m) throw badRequest('path: a secret path is required');
  return m[1]!;
}

const vaultParams = z.object({ vault_id: z.string(), path: z.unknown().optional(), rest: z.unknown().optional() });

const putBody = z.object({
  type: secretTypeField.optional(),
  value: z.string({ message: 'must be a string' }),
  metadata: z.record(z.string(), z.unknown()).optional()
    .refine((m) => m === undefined || Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_BYTES, { message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON` }),
  description: z.string().max(MAX_DESCRIPTION_LENGTH).nullable().optional(),
  expires_at: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }).nullable().optional(),
});

async function authorizeOnVault(ctx: AppContext, s: ApiServices, principal: Principal, vaultId: string, path: string, permission: 'write' | 'delete' | 'read') {
  const caller = await loadCaller(s.hot, principal, ctx.state.clientIp);
  const { vault, policies } = await loadVisibleVault(s.em(), caller, vaultId);
  const d = decide(caller, vault, policies, path, permission);
  if (!d.allowed) throw forbidden(d.detail);
  return { caller, vault, policies };
}

/** Reads, audits (the value is returned only once the record is durable) and answers uncached. */
async function respondWithSecret(ctx: AppContext, s: ApiServices, principal: Principal, vaultId: string, path: string, version: number | null) {
  const secret = await readSecret(s.hot, s.kms, principal, ctx.state.clientIp, vaultId, path, version,
    (r) => auditAction(ctx, s, 'secret.read', { resourceType: 'secret', resourceId: r.secretId, details: { vault_id: r.vaultId, path, version: r.version }, guard: r.guard }));
  ctx.set('Cache-Control', 'no-store');
  json(ctx, 200, secret);
}

export const secretRoutes = [
  route({
    method: 'PUT', path: '/v1/vaults/:vault_id/secrets/*path', tag: 'Secrets', auth: 'principal',
    summary: 'Create or update a secret (each write is a new version)',
    params: vaultParams, body: putBody,
    success: { status: 201, description: 'Version written' }, errors: { 400: 'Invalid path or input', 403: 'No write permission, or resource_limit_exceeded', 404: 'Vault not found', 413: 'Value too large' },
    async handler({ ctx, params, body, principal, services: s }) {
      const path = canonicalSecretPath(rawTail(ctx, 'secrets'));
      if (Buffer.byteLength(body.value, 'utf8') > MAX_VALUE_BYTES) throw new Problem(413, `value: must be at most ${MAX_VALUE_BYTES} bytes`);
      const expiresAt = body.expires_at === undefined ? undefined : body.expires_at === null ? null : new Date(body.expires_at);
      if (expiresAt && expiresAt.getTime() <= Date.now()) throw badRequest('expires_at: must be in the future');
      const { vault } = await authorizeOnVault(ctx, s, principal, params.vault_id, path, 'write');
      const written = await s.em().transactional((tx) => writeSecret(tx, s.kms, principal, vault, path, {
        type: body.type, value: body.value, metadata: body.metadata, description: body.description, expiresAt,
      }));
      await auditAction(ctx, s, 'secret.write', { resourceType: 'secret', resourceId: written.id, details: { vault_id: vault.id, path, version: written.version } });
      json(ctx, 201, { id: written.id, path, type: written.type, version: written.version, metadata: written.metadata, description: written.description, created_at: iso(written.created_at), expires_at: iso(written.expires_at) });
    },
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/secrets/*path', tag: 'Secrets', auth: 'principal',
    summary: 'Read the decrypted value of the latest version (or ?version=N)',
    params: vaultParams, query: z.object({ version: z.coerce.number().int().positive().optional() }),
    success: { status: 200, description: 'Secret with value' }, errors: { 403: 'No read permission', 404: 'Not found', 410: 'Expired or disabled' },
    async handler({ ctx, params, query, principal, services: s }) {
      const path = canonicalSecretPath(rawTail(ctx, 'secrets'));
      await respondWithSecret(ctx, s, principal, params.vault_id, path, query.version ?? null);
    },
  }),
  route({
    method: 'DELETE', path: '/v1/vaults/:vault_id/secrets/*path', tag: 'Secrets', auth: 'principal',
    summary: 'Soft-delete a secret (versions are kept)',
    params: vaultParams,
    success: { status: 204, description: 'Deleted' }, errors: { 403: 'No delete permission', 404: 'Not found' },
    async handler({ ctx, params, principal, services: s }) {
      const path = canonicalSecretPath(rawTail(ctx, 'secrets'));
      const { vault } = await authorizeOnVault(ctx, s, principal, params.vault_id, path, 'delete');
      const id = await s.em().transactional((tx) => softDeleteSecret(tx, principal, vault, path));
      if (!id) throw notFound('Secret');
      await auditAction(ctx, s, 'secret.delete', { resourceType: 'secret', resourceId: id, details: { vault_id: vault.id, path } });
      ctx.status = 204;
    },
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/secrets', tag: 'Secrets', auth: 'principal',
    summary: 'List secrets: metadata only, never values; prefix filter and cursor pagination',
    params: z.object({ vault_id: z.string() }),
    query: z.object({
      prefix: z.string().max(512).optional(),
      limit: z.coerce.number().int().min(1).max(500).default(100),
      cursor: z.string().max(2048).optional(),
    }),
    success: { status: 200, description: '{secrets, count, next_cursor}' }, errors: { 404: 'Vault not found' },
    async handler({ ctx, params, query, principal, services: s }) {
      const prefix = secretPathPrefix(query.prefix ?? '');
      const caller = await loadCaller(s.hot, principal, ctx.state.clientIp);
      const em = s.em();
      const { vault, policies } = await loadVisibleVault(em, caller, params.vault_id);
      json(ctx, 200, await listSecrets(em, caller, vault, policies, { prefix, limit: query.limit, cursor: query.cursor }));
    },
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/secret-versions/*path', tag: 'Secrets', auth: 'principal',
    summary: 'Versions of a secret (metadata only)',
    params: vaultParams,
    success: { status: 200, description: '{versions}' }, errors: { 403: 'No read permission', 404: 'Not found' },
    async handler({ ctx, params, principal, services: s }) {
      const path = canonicalSecretPath(rawTail(ctx, 'secret-versions'));
      const { vault } = await authorizeOnVault(ctx, s, principal, params.vault_id, path, 'read');
      const versions = await listVersions(s.em(), vault, path);
      if (versions.length === 0) throw notFound('Secret');
      json(ctx, 200, { versions });
    },
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/secret-version/*rest', tag: 'Secrets', auth: 'principal',
    summary: 'Read one version: /secret-version/{path}/{version}',
    params: vaultParams,
    success: { status: 200, description: 'Secret with value' }, errors: { 400: 'Missing version', 403: 'No read permission', 404: 'Not found', 410: 'Expired or disabled' },
    async handler({ ctx, params, principal, services: s }) {
      const tail = rawTail(ctx, 'secret-version');
      const cut = tail.lastIndexOf('/');
      const versionText = cut > 0 ? tail.slice(cut + 1) : '';
      if (!/^[1-9]\d{0,8}$/.test(versionText)) throw badRequest('version: the URL must end with /{path}/{version} where version is a positive integer');
      const path = canonicalSecretPath(tail.slice(0, cut));
      await respondWithSecret(ctx, s, principal, params.vault_id, path, Number(versionText));
    },
  }),
];
