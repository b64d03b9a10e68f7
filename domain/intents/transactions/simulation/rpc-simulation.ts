// The default simulation provider: the chain's own node, through ChainRpc. One transaction is run
// call by call (sequential.ts). A bundle goes to eth_simulateV1 when the node has it
// (simulate-v1.ts), else call by call with each transaction's effects carried to the next as state
// overrides. What a node offers is learnt on first use and remembered per chain for a while (an
// operator may point the chain at another node). An unreachable node throws ChainUnavailable.
import type { ChainRpc } from '../../../chains/chain-rpc.ts';
import { traceHonoursOverrides } from './node-calls.ts';
import { simulateInSequence, type Capabilities, type SimContext } from './sequential.ts';
import { simulateWithV1 } from './simulate-v1.ts';
import type { SimulationProvider, SimulationRequest, SimulationResult } from './simulation-provider.ts';

const CAPABILITIES_TTL_MS = 10 * 60_000;

export class RpcSimulationProvider implements SimulationProvider {
  readonly name = 'rpc';
  private readonly rpc: ChainRpc;
  private readonly known = new Map<number, { caps: Capabilities; until: number }>();

  constructor(rpc: ChainRpc) {
    this.rpc = rpc;
  }

  async simulate(req: SimulationRequest, nativeSymbol: string): Promise<SimulationResult> {
    return (await simulateInSequence(await this.context(req.chainId, nativeSymbol), [req]))[0]!;
  }

  async simulateBundle(reqs: SimulationRequest[], nativeSymbol: string): Promise<SimulationResult[]> {
    if (reqs.length === 0) return [];
    const chainId = reqs[0]!.chainId;
    if (reqs.some((r) => r.chainId !== chainId)) throw new Error('a bundle runs on one chain');
    if (reqs.length === 1) return [await this.simulate(reqs[0]!, nativeSymbol)];
    const ctx = await this.context(chainId, nativeSymbol);
    if (ctx.caps.simulateV1 !== false) {
      const results = await simulateWithV1(ctx, reqs);
      ctx.caps.simulateV1 = results !== null;
      if (results) return results;
    }
    if (ctx.caps.traceOverrides === undefined && ctx.caps.traceDiff !== false) {
      ctx.caps.traceOverrides = await traceHonoursOverrides(this.rpc, chainId);
    }
    return simulateInSequence(ctx, reqs);
  }

  /** What the chain's node offers (shared, so what one simulation learns the next one knows). */
  capabilities(chainId: number): Capabilities {
    const hit = this.known.get(chainId);
    if (hit && hit.until > Date.now()) return hit.caps;
    const caps: Capabilities = {};
    this.known.set(chainId, { caps, until: Date.now() + CAPABILITIES_TTL_MS });
    return caps;
  }

  private async context(chainId: number, symbol: string): Promise<SimContext> {
    return { rpc: this.rpc, chainId, symbol, fees: await this.rpc.fees(chainId), caps: this.capabilities(chainId) };
  }
}
