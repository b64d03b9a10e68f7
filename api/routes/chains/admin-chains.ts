// Managing chains (§4.14): platform operators (PLATFORM_ADMIN_EMAILS) only. `{chain_id}` takes
// the same forms as the public `{identifier}`: internal id, chain_id or name. Answers show the
// endpoint URLs in full, since operators set them.
import { route } from '../../route.ts';
import { adminChainParams, createChainBody, updateChainBody } from './schema.ts';
import { AdminChainSchema, AdminChainListSchema, presentAdminChain, presentAdminChainList } from '../../presenters/chains.ts';
import { NOT_AN_OPERATOR } from '../admin/operator-only.ts';

const TAG = 'Chains';

export const adminChainRoutes = [
  route({
    method: 'GET', path: '/v1/admin/chains', tag: TAG, auth: 'user',
    summary: 'Every chain, disabled ones included (platform operators)',
    success: { status: 200, description: 'The chains', schema: AdminChainListSchema },
    errors: { 403: NOT_AN_OPERATOR },
    handler: async ({ action, services: s }) => presentAdminChainList(await s.chains.adminList(action)),
  }),
  route({
    method: 'POST', path: '/v1/admin/chains', tag: TAG, auth: 'user',
    summary: 'Add a chain (platform operators); display_name defaults to name, native_currency to ETH',
    body: createChainBody,
    success: { status: 201, description: 'The chain', schema: AdminChainSchema },
    errors: { 400: 'Invalid name, chain_id or URL', 403: NOT_AN_OPERATOR, 409: 'Another chain has this name or chain_id, or CHAIN_RPC_URLS sets its rpc_url' },
    handler: async ({ body, action, services: s }) => presentAdminChain(await s.chains.create(action, body)),
  }),
  route({
    method: 'PUT', path: '/v1/admin/chains/:chain_id', tag: TAG, auth: 'user',
    summary: 'Update a chain (platform operators): the given fields only; name and chain_id are fixed',
    params: adminChainParams, body: updateChainBody,
    success: { status: 200, description: 'The chain', schema: AdminChainSchema },
    errors: { 400: 'No field given, an invalid URL, or a changed name or chain_id', 403: NOT_AN_OPERATOR, 404: 'Not found', 409: 'CHAIN_RPC_URLS sets this chain\'s rpc_url' },
    handler: async ({ params, body, action, services: s }) => presentAdminChain(await s.chains.update(action, params.chain_id, body)),
  }),
  route({
    method: 'DELETE', path: '/v1/admin/chains/:chain_id', tag: TAG, auth: 'user',
    summary: 'Remove a chain (platform operators)',
    params: adminChainParams,
    success: { status: 204, description: 'Removed' },
    errors: { 403: NOT_AN_OPERATOR, 404: 'Not found', 409: 'The chain is still in use' },
    handler: async ({ params, action, services: s }) => s.chains.delete(action, params.chain_id),
  }),
];
