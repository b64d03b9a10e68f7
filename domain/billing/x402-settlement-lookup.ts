// Finds an x402 payment's settlement on chain, for when the facilitator settled it but its answer
// was lost (a timeout, a crash of the process that asked): asked again, the facilitator can only
// say the authorization's nonce is used. Used by whom is what matters, since the payer could have
// spent the same nonce on another transfer: the token's AuthorizationUsed(payer, nonce) event
// names the transaction, and that transaction must carry Transfer(payer, payTo, amount).
// EIP-3009 tokens on EVM chains only; the chain must be one the chains table knows (its rpc_url).
import { encodeAbiParameters, keccak256, toHex, type Hex } from 'viem';

/** What the lookup needs of the chain access (domain/chains/chain-rpc.ts). */
export type ChainRequests = { request<T>(chainId: number, method: string, params: unknown[]): Promise<T> };

const AUTHORIZATION_USED = keccak256(toHex('AuthorizationUsed(address,bytes32)'));
const TRANSFER = keccak256(toHex('Transfer(address,address,uint256)'));
/** How far back to look: the authorization was valid for minutes, not days. */
const LOOKBACK_BLOCKS = 5_000n;

type Log = { address: string; topics: string[]; data: string; transactionHash: string };
type Authorization = { from: string; to: string; value: string; nonce: string };

const topicOf = (address: string): Hex => encodeAbiParameters([{ type: 'address' }], [address as Hex]);

/** The hash of the transaction that settled this payment, or null when none did. */
export async function findSettlement(rpc: ChainRequests, requirements: Record<string, unknown>, payment: Record<string, unknown>): Promise<string | null> {
  const m = /^eip155:(\d+)$/.exec(String(requirements.network));
  const auth = (payment.payload as { authorization?: Authorization } | undefined)?.authorization;
  const asset = String(requirements.asset ?? '');
  const payTo = String(requirements.payTo ?? '').toLowerCase();
  const amount = String(requirements.amount ?? requirements.maxAmountRequired ?? '');
  if (!m || !auth || !/^0x[0-9a-fA-F]{40}$/.test(asset)) return null;
  const chainId = Number(m[1]);
  const latest = BigInt(await rpc.request<string>(chainId, 'eth_blockNumber', []));
  const fromBlock = latest > LOOKBACK_BLOCKS ? latest - LOOKBACK_BLOCKS : 0n;
  const used = await rpc.request<Log[]>(chainId, 'eth_getLogs', [{
    address: asset, fromBlock: toHex(fromBlock), toBlock: 'latest', topics: [AUTHORIZATION_USED, topicOf(auth.from), auth.nonce],
  }]);
  for (const log of used) {
    const receipt = await rpc.request<{ status: string; logs: Log[] } | null>(chainId, 'eth_getTransactionReceipt', [log.transactionHash]);
    if (!receipt || receipt.status !== '0x1') continue;
    const paid = receipt.logs.some((l) => l.address.toLowerCase() === asset.toLowerCase() && l.topics[0] === TRANSFER
      && l.topics[1]?.toLowerCase() === topicOf(auth.from).toLowerCase() && l.topics[2]?.toLowerCase() === topicOf(payTo).toLowerCase()
      && BigInt(l.data) >= BigInt(amount || '0'));
    if (paid) return log.transactionHash;
  }
  return null;
}
