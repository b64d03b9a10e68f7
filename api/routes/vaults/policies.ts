// Policies (§2.5, §4.4): grants of read/write on path globs to users and agents of the
// organization, managed by owners, admins and the vault's creator. Changes apply to the next
// request: access decisions always read the current policies.
import { route } from '../../route.ts';
import { createPolicyBody, updatePolicyBody, policyParams, vaultParams } from './schema.ts';
import { futureOrNull } from '../../input/fields.ts';
import { PolicySchema, PolicyListSchema, presentPolicy, presentPolicyList } from '../../presenters/policies.ts';

export const policyRoutes = [
  route({
    method: 'POST', path: '/v1/vaults/:vault_id/policies', tag: 'Policies', auth: 'principal',
    summary: 'Grant a user or agent permissions on a path pattern', params: vaultParams, body: createPolicyBody,
    success: { status: 201, description: 'The policy', schema: PolicySchema },
    errors: { 403: 'Not allowed to manage this vault', 404: 'Vault not found' },
    handler: async ({ params, body, action, services: s }) =>
      presentPolicy(await s.policies.create(action, params.vault_id, { ...body, expires_at: futureOrNull('expires_at', body.expires_at) ?? null })),
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/policies', tag: 'Policies', auth: 'principal',
    summary: "The vault's policies", params: vaultParams,
    success: { status: 200, description: 'The policies', schema: PolicyListSchema },
    errors: { 403: 'Not allowed', 404: 'Vault not found' },
    handler: async ({ params, action, services: s }) => presentPolicyList(await s.policies.list(action, params.vault_id)),
  }),
  route({
    method: 'PUT', path: '/v1/vaults/:vault_id/policies/:policy_id', tag: 'Policies', auth: 'principal',
    summary: 'Update a policy (pattern and principal are fixed; e.g. permissions alone)', params: policyParams, body: updatePolicyBody,
    success: { status: 200, description: 'The policy', schema: PolicySchema },
    errors: { 403: 'Not allowed', 404: 'Not found' },
    handler: async ({ params, body, action, services: s }) =>
      presentPolicy(await s.policies.update(action, params.vault_id, params.policy_id, { ...body, expires_at: futureOrNull('expires_at', body.expires_at) })),
  }),
  route({
    method: 'DELETE', path: '/v1/vaults/:vault_id/policies/:policy_id', tag: 'Policies', auth: 'principal',
    summary: 'Delete a policy', params: policyParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: 'Not allowed', 404: 'Not found' },
    handler: async ({ params, action, services: s }) => s.policies.delete(action, params.vault_id, params.policy_id),
  }),
];
