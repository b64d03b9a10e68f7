// Secrets (§4.4): PUT creates or updates (a new version each time), GET returns the decrypted
// value, DELETE is a soft delete, the list shows metadata only; plus the reference's version
// routes, server-side rotation and version disabling. Paths: see secret-paths.ts.
import { route, type AppContext } from '../../route.ts';
import type { VaultUnlock } from '../../../domain/secrets/secret-read.ts';
import { secretParams, putSecretBody, readSecretQuery, listSecretsQuery, rotateSecretBody, vaultParams } from './schema.ts';
import { secretPathOf, secretPathAndVersionOf } from './secret-paths.ts';
import { futureOrNull } from '../../input/fields.ts';
import {
  SecretValueSchema, SecretWrittenSchema, SecretListSchema, SecretVersionListSchema,
  presentSecretValue, presentSecretWritten, presentSecretList, presentSecretVersions,
} from '../../presenters/secrets.ts';
import { secretPathPrefix } from '../../../domain/paths/secret-path.ts';

/** X-Passkey-Token of an HTTP read: needed when the user turned vault unlock on (spec §5 item 6). */
const unlockOf = (ctx: AppContext): VaultUnlock => ({ passkeyToken: ctx.get('x-passkey-token') || undefined });

export const secretRoutes = [
  route({
    method: 'PUT', path: '/v1/vaults/:vault_id/secrets/*path', tag: 'Secrets', auth: 'principal', billable: 'write_secret', platformConnection: true,
    summary: 'Create or update a secret (each write is a new version)',
    params: secretParams, body: putSecretBody,
    success: { status: 201, description: 'The version written (never the value)', schema: SecretWrittenSchema },
    errors: { 403: 'No write permission, or resource_limit_exceeded', 404: 'Vault not found', 413: 'Value too large' },
    handler: async ({ ctx, params, body, action, services: s }) => presentSecretWritten(await s.secrets.write(action, params.vault_id, secretPathOf(ctx, 'secrets'), {
      type: body.type, value: body.value, metadata: body.metadata, description: body.description,
      expiresAt: futureOrNull('expires_at', body.expires_at), maxAccessCount: body.max_access_count, rotationPolicy: body.rotation_policy,
    })),
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/secrets/*path', tag: 'Secrets', auth: 'principal', billable: 'read_secret', platformConnection: true,
    summary: 'Read the decrypted value of the latest version (or ?version=N)',
    params: secretParams, query: readSecretQuery,
    success: { status: 200, description: 'The secret with its value', schema: SecretValueSchema },
    errors: { 403: 'No read permission; or (type passkey_required) the user requires a passkey for vaults and X-Passkey-Token is missing, invalid or expired', 404: 'Not found', 410: 'Expired, disabled, or past its read cap' },
    handler: async ({ ctx, params, query, action, services: s }) =>
      presentSecretValue(await s.secrets.read(action, params.vault_id, secretPathOf(ctx, 'secrets'), query.version ?? null, unlockOf(ctx))),
  }),
  route({
    method: 'DELETE', path: '/v1/vaults/:vault_id/secrets/*path', tag: 'Secrets', auth: 'principal',
    summary: 'Soft-delete a secret (versions are kept)', params: secretParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: 'No delete permission', 404: 'Not found' },
    handler: async ({ ctx, params, action, services: s }) => s.secrets.delete(action, params.vault_id, secretPathOf(ctx, 'secrets')),
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/secrets', tag: 'Secrets', auth: 'principal', platformConnection: true,
    summary: 'List secrets: metadata only, never values; prefix filter and cursor pagination',
    params: vaultParams, query: listSecretsQuery,
    success: { status: 200, description: 'One page of secrets the caller may read', schema: SecretListSchema },
    errors: { 404: 'Vault not found' },
    handler: async ({ params, query, action, services: s }) => presentSecretList(await s.secrets.list(action, params.vault_id, {
      prefix: secretPathPrefix(query.prefix ?? ''), limit: query.limit, after: query.cursor,
    })),
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/secret-versions/*path', tag: 'Secrets', auth: 'principal',
    summary: 'Versions of a secret (metadata only)', params: secretParams,
    success: { status: 200, description: 'Every version, newest first', schema: SecretVersionListSchema },
    errors: { 403: 'No read permission', 404: 'Not found' },
    handler: async ({ ctx, params, action, services: s }) => {
      const path = secretPathOf(ctx, 'secret-versions');
      return presentSecretVersions(path, await s.secrets.versions(action, params.vault_id, path));
    },
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/secret-version/*rest', tag: 'Secrets', auth: 'principal',
    summary: 'Read one version: /secret-version/{path}/{version}', params: secretParams,
    success: { status: 200, description: 'The secret version with its value', schema: SecretValueSchema },
    errors: { 403: 'No read permission; or (type passkey_required) X-Passkey-Token is missing, invalid or expired', 404: 'Not found', 410: 'Expired, disabled, or past its read cap' },
    handler: async ({ ctx, params, action, services: s }) => {
      const { path, version } = secretPathAndVersionOf(ctx, 'secret-version');
      return presentSecretValue(await s.secrets.read(action, params.vault_id, path, version, unlockOf(ctx)));
    },
  }),
  route({
    method: 'POST', path: '/v1/vaults/:vault_id/secret-rotate/*path', tag: 'Secrets', auth: 'principal',
    summary: 'Rotate: store a server-generated random value as a new version (the value is not returned)',
    params: secretParams, body: rotateSecretBody,
    success: { status: 201, description: 'The version written', schema: SecretWrittenSchema },
    errors: { 403: 'No rotate or write permission', 404: 'No such secret' },
    handler: async ({ ctx, params, body, action, services: s }) =>
      presentSecretWritten(await s.secrets.rotate(action, params.vault_id, secretPathOf(ctx, 'secret-rotate'), body)),
  }),
  route({
    method: 'POST', path: '/v1/vaults/:vault_id/secret-version-disable/*rest', tag: 'Secrets', auth: 'principal',
    summary: 'Disable one version: /secret-version-disable/{path}/{version}; reads of it answer 410', params: secretParams,
    success: { status: 204, description: 'Disabled' },
    errors: { 403: 'No write permission', 404: 'No such version' },
    handler: async ({ ctx, params, action, services: s }) => {
      const { path, version } = secretPathAndVersionOf(ctx, 'secret-version-disable');
      await s.secrets.disableVersion(action, params.vault_id, path, version);
    },
  }),
];
