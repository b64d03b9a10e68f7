// What the Bitcoin and Solana treasury wallet families share: the network a path names, resolved
// by the Intents API's family registry (the seeded chains row, its node from CHAIN_RPC_URLS or
// PUT /v1/admin/chains/{name}), and the answers for what these families do not do yet.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Problem, invalidField } from '../../errors.ts';
import type { ChainFamilies } from '../../intents/families/family-registry.ts';
import type { FamilyNetwork } from '../../intents/families/chain-family.ts';
import type { WalletFamilyName, WalletNetwork } from './chain-families.ts';

/** The network `raw` names, of family `family` (a path `bitcoin` names mainnet; `bitcoin-regtest` regtest). */
export async function familyWalletNetwork(families: ChainFamilies, em: EntityManager, raw: string, family: WalletFamilyName): Promise<WalletNetwork> {
  const r = await families.resolve(em, raw);
  if (r.name !== family) throw invalidField('chain', `is not a ${family} network`);
  return { name: r.net.name, chainId: r.net.chainId, nativeCurrency: r.family.unit.symbol, node: r.net };
}

/** The network's node, or a 503 saying how the operator sets one (as the Intents API answers). */
export function nodeOf(net: WalletNetwork): FamilyNetwork {
  if (net.node && net.node.rpcUrl !== '') return net.node;
  throw new Problem(503, `Chain ${net.name} has no node configured: the operator sets one with CHAIN_RPC_URLS or PUT /v1/admin/chains/${net.name}`, {
    type: 'chain_unavailable', title: 'Chain Unavailable',
  });
}

/** Sends of a family that does not send yet: 501, before anything is confirmed, built or signed. */
export const sendsLater = (family: WalletFamilyName) => new Problem(501,
  `Sending from ${family} treasury wallets comes later: generate, balance, export, rotate and deactivate work today. To move the funds now, export the key into a ${family} wallet`,
  { type: 'treasury_send_unavailable', title: 'Not Implemented' });

/** ERC-20 token balances are EVM's; the other families are asked without `tokens`. */
export function noTokens(family: WalletFamilyName, tokens: string[]): void {
  if (tokens.length > 0) throw invalidField('tokens', `token balances are for EVM chains only, not ${family}`);
}
