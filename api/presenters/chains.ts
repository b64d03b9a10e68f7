// Chains (spec §2.8, reference ChainResponse and ChainListResponse). Two audiences:
// - Chain (GET /v1/chains…, no authentication): rpc_url and ws_url appear only when they can
//   carry no credential (domain/chains/public-endpoint.ts) and never when CHAIN_RPC_URLS pins
//   them; otherwise they are omitted, whole, so a provider's key in the URL never leaks and no
//   masked, unusable URL is handed out.
// - AdminChain (platform operators): every URL in full, and whether rpc_url is pinned.
// Optional fields are omitted rather than sent as null.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways, omitNull } from './registry.ts';
import type { ChainView } from '../../domain/chains/chain-commands.ts';
import { publicEndpoint } from '../../domain/chains/public-endpoint.ts';

const chainFields = {
  id: uuid,
  /** Lower-case, e.g. `base-sepolia`; addresses the chain like `chain_id` does. */
  name: z.string(),
  display_name: z.string(),
  chain_id: z.number().int(),
  rpc_url: z.string().optional(),
  ws_url: z.string().optional(),
  explorer_url: z.string().optional(),
  /** The native currency's symbol, e.g. ETH. */
  native_currency: z.string(),
  is_testnet: z.boolean(),
  is_enabled: z.boolean(),
  /** The chain family: `ethereum` for every EVM chain, `bitcoin` or `solana` for their networks. */
  family: z.string(),
  /** The family's word for the network (bitcoin mainnet|testnet|regtest; solana mainnet-beta|devnet|testnet|localnet); omitted for EVM. */
  network: z.string().optional(),
  /** Confirmations after which a transaction counts as confirmed. */
  confirmations: z.number().int(),
  created_at: timestamp,
  updated_at: timestamp,
};

export const ChainSchema = shape('Chain', z.object(chainFields),
  'A chain; rpc_url and ws_url are omitted when they may carry a credential or are set by the deployment');

export const ChainListSchema = shape('ChainList', z.object({ chains: z.array(ChainSchema) }));

export const AdminChainSchema = shape('AdminChain', z.object({
  ...chainFields,
  /** True when this deployment's CHAIN_RPC_URLS sets rpc_url: the API then refuses another one. */
  rpc_url_pinned: z.boolean(),
}), 'A chain as platform operators see it: endpoint URLs in full');

export const AdminChainListSchema = shape('AdminChainList', z.object({ chains: z.array(AdminChainSchema) }));

/** The chain in the reference's field order, with the endpoint URLs the audience may see. */
function fields(c: ChainView, rpcUrl: string | null, wsUrl: string | null): z.output<typeof ChainSchema> {
  return {
    id: c.id,
    name: c.name,
    display_name: c.display_name,
    chain_id: c.chain_id,
    rpc_url: omitNull(rpcUrl),
    ws_url: omitNull(wsUrl),
    explorer_url: omitNull(c.explorer_url),
    native_currency: c.native_currency,
    is_testnet: c.is_testnet,
    is_enabled: c.is_enabled,
    family: c.family,
    network: omitNull(c.network),
    confirmations: c.confirmations,
    created_at: isoAlways(c.created_at),
    updated_at: isoAlways(c.updated_at),
  };
}

export const presentChain = (c: ChainView): z.output<typeof ChainSchema> =>
  fields(c, publicEndpoint(c.rpc_url, c.rpc_url_pinned), publicEndpoint(c.ws_url));

export const presentChainList = (chains: ChainView[]): z.output<typeof ChainListSchema> => ({ chains: chains.map(presentChain) });

export const presentAdminChain = (c: ChainView): z.output<typeof AdminChainSchema> =>
  ({ ...fields(c, c.rpc_url, c.ws_url), rpc_url_pinned: c.rpc_url_pinned });

export const presentAdminChainList = (chains: ChainView[]): z.output<typeof AdminChainListSchema> => ({ chains: chains.map(presentAdminChain) });
