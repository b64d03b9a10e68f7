// Vaults (§4.4): each vault gets its own key in the KMS. `__agent-keys` is reserved.
import { route } from '../../route.ts';
import { createVaultBody, vaultParams } from './schema.ts';
import { VaultSchema, VaultListSchema, presentVault, presentVaultList } from '../../presenters/vaults.ts';

export const vaultRoutes = [
  route({
    method: 'POST', path: '/v1/vaults', tag: 'Vaults', auth: 'principal',
    summary: 'Create a vault (with its own key in the KMS)',
    body: createVaultBody,
    success: { status: 201, description: 'The vault', schema: VaultSchema },
    errors: { 403: 'resource_limit_exceeded' },
    handler: async ({ body, action, services: s }) => presentVault(await s.vaults.create(action, body)),
  }),
  route({
    method: 'GET', path: '/v1/vaults', tag: 'Vaults', auth: 'principal',
    summary: 'List the vaults the caller can see',
    success: { status: 200, description: 'The vaults', schema: VaultListSchema },
    handler: async ({ action, services: s }) => presentVaultList(await s.vaults.list(action)),
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id', tag: 'Vaults', auth: 'principal',
    summary: 'One vault', params: vaultParams,
    success: { status: 200, description: 'The vault', schema: VaultSchema },
    errors: { 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentVault(await s.vaults.get(action, params.vault_id)),
  }),
  route({
    method: 'DELETE', path: '/v1/vaults/:vault_id', tag: 'Vaults', auth: 'principal',
    summary: 'Delete a vault and destroy its key', params: vaultParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: 'Only owners, admins or the creator', 404: 'Not found' },
    handler: async ({ params, action, services: s }) => s.vaults.delete(action, params.vault_id),
  }),
];
