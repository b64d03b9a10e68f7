// What the service reads from a Safe on chain, through the chains' one JSON-RPC client: its
// current nonce (the SafeTx of a new proposal is built on it) and whether it has code at all.
import { decodeFunctionResult, encodeFunctionData, type Address, type Hex } from 'viem';
import { ChainRpcError, ChainUnavailable, type ChainRpc } from '../../chains/chain-rpc.ts';
import { Problem } from '../../errors.ts';
import { SAFE_ABI } from './safe-tx.ts';

export class SafeChain {
  private readonly rpc: ChainRpc;

  constructor(rpc: ChainRpc) {
    this.rpc = rpc;
  }

  /** The Safe's nonce(); a 422 when the address answers no Safe call. */
  async nonce(chainId: number, safe: Address): Promise<bigint> {
    return this.read(chainId, safe, 'nonce');
  }

  async threshold(chainId: number, safe: Address): Promise<bigint> {
    return this.read(chainId, safe, 'getThreshold');
  }

  private async read(chainId: number, safe: Address, fn: 'nonce' | 'getThreshold'): Promise<bigint> {
    const data = encodeFunctionData({ abi: SAFE_ABI, functionName: fn });
    let out: Hex;
    try {
      // A gas limit of our own: some nodes' default for calls is above their per-transaction cap.
      out = await this.rpc.request<Hex>(chainId, 'eth_call', [{ to: safe, data, gas: '0xf4240' }, 'latest']);
    } catch (e) {
      // An unreachable node is the service's trouble (503, retry); a call the node refuses means no Safe there.
      if (e instanceof ChainUnavailable) {
        throw new Problem(503, `${e.message}; try again shortly`, { type: 'chain_unavailable', title: 'Chain Unavailable', headers: { 'Retry-After': '5' } });
      }
      if (e instanceof ChainRpcError) throw notASafe(safe, fn, chainId);
      throw e;
    }
    if (!out || out === '0x') throw notASafe(safe, fn, chainId);
    return decodeFunctionResult({ abi: SAFE_ABI, functionName: fn, data: out });
  }
}

const notASafe = (safe: string, fn: string, chainId: number) =>
  new Problem(422, `${safe} does not answer ${fn}() on chain ${chainId}: is it a deployed Safe?`, { type: 'not_a_safe', title: 'Not a Safe' });
