// The chains anyone may read (§4.1, public): the enabled ones, by internal id, chain_id or name.
// Public answers withhold endpoint URLs that may carry a credential (api/presenters/chains.ts).
import { route } from '../../route.ts';
import { chainParams } from './schema.ts';
import { ChainSchema, ChainListSchema, presentChain, presentChainList } from '../../presenters/chains.ts';

export const chainRoutes = [
  route({
    method: 'GET', path: '/v1/chains', tag: 'Chains', auth: 'public',
    summary: 'The enabled chains, by name',
    success: { status: 200, description: 'The chains', schema: ChainListSchema },
    handler: async ({ services: s }) => presentChainList(await s.chains.list()),
  }),
  route({
    method: 'GET', path: '/v1/chains/:identifier', tag: 'Chains', auth: 'public',
    summary: 'One enabled chain, by internal id, chain_id (decimal or 0x-hex) or name',
    params: chainParams,
    success: { status: 200, description: 'The chain', schema: ChainSchema },
    errors: { 404: 'No enabled chain answers to this identifier' },
    handler: async ({ params, services: s }) => presentChain(await s.chains.get(params.identifier)),
  }),
];
