// The one rule for which rpc_url a chain uses: the deployment's pin (CHAIN_RPC_URLS) when there is
// one, else the stored value. Shared by the chain commands (what operators see) and ChainRpc (what
// the service calls), so the two can never disagree.
import type { ChainRow } from './chain-repository.ts';

export type EffectiveRpc = { url: string | null; pinned: boolean };

export function effectiveRpcUrl(row: Pick<ChainRow, 'name' | 'rpc_url'>, overrides: ReadonlyMap<string, string>): EffectiveRpc {
  const pin = overrides.get(row.name);
  return pin !== undefined ? { url: pin, pinned: true } : { url: row.rpc_url, pinned: false };
}
