// What the Bitcoin and Solana treasury wallet families share: the network a path names, resolved
// by the Intents API's family registry (the seeded chains row, its node from CHAIN_RPC_URLS or
// PUT /v1/admin/chains/{name}); the Intents families' broadcast verdicts and statuses in the
// treasury's terms; and the answers for what these families do not take.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Problem, invalidField } from '../../errors.ts';
import type { ChainFamilies } from '../../intents/families/family-registry.ts';
import type { ChainFamily, FamilyNetwork, TransferStatus } from '../../intents/families/chain-family.ts';
import type { BroadcastVerdict, TransferReceipt, TransferRequest, WalletFamilyName, WalletNetwork } from './chain-families.ts';

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

/** ERC-20 token balances are EVM's; the other families are asked without `tokens`. */
export function noTokens(family: WalletFamilyName, tokens: string[]): void {
  if (tokens.length > 0) throw invalidField('tokens', `token balances are for EVM chains only, not ${family}`);
}

/** `data` and `gas_limit` are EVM's: a 400 naming them on the other families. */
export function refuseEvmFields(family: WalletFamilyName, req: TransferRequest): void {
  if (req.data !== undefined && req.data !== '0x') throw invalidField('data', `is for EVM chains only, not ${family}`);
  if (req.gasLimit !== undefined) throw invalidField('gas_limit', `is for EVM chains only, not ${family}`);
}

/** Sends through the Intents family: refused for good → the reason; not taken yet (a lagging node) → throws, the activity retries. */
export async function broadcastThrough(family: ChainFamily, node: FamilyNetwork, raw: string): Promise<BroadcastVerdict> {
  const v = await family.broadcast(node, raw);
  if (v.sent) return { sent: true };
  if (v.permanent) return { sent: false, reason: v.reason };
  throw new Error(`the node did not take the transaction yet: ${v.reason}`);
}

/** The Intents family's status as a receipt: null while pending or unknown. */
export function receiptOf(s: TransferStatus): TransferReceipt | null {
  switch (s.state) {
    case 'confirmed': return { success: true, blockNumber: s.block };
    case 'failed': return { success: false, blockNumber: s.block, reason: `The transaction failed: ${s.reason}` };
    case 'expired': return { success: false, blockNumber: null, reason: 'The blockhash expired before the network saw the transaction: nothing moved; send again' };
    default: return null;
  }
}
