// What a simulation provider answers: runs a transaction (or a sequence) against a chain's current
// state without signing or sending it. The default provider is the chain's own node
// (rpc-simulation.ts); a hosted simulator can implement the same interface.
// A node that cannot be reached is not a result: providers throw ChainUnavailable for it, so the
// caller can tell "the transaction would revert" (422) from "the chain is down" (503).
import type { Address, Hex } from 'viem';

export type SimulationRequest = { chainId: number; from: Address; to: Address; value: bigint; data?: Hex; gasLimit?: bigint };

/** Amounts are decimal wei strings; `change` is signed (after − before). */
export type BalanceChange = { address: Address; token: string /* 'native' or the token contract */; token_symbol: string; before: string; after: string; change: string };

export type SimulationResult = {
  /** success; reverted: it would be mined and fail; error: it would not be accepted, or was not simulated (see errorCode). */
  status: 'success' | 'reverted' | 'error';
  /** Gas it needs (eth_estimateGas), or gas it used in an eth_simulateV1 bundle; null when unknown. */
  gasUsed: bigint | null;
  /** Decoded Error(string), Panic(uint256) as text, "custom error 0x…" (the selector) otherwise. */
  revertReason: string | null;
  revertData: Hex | null;
  /** The node's own message, a machine code (execution_reverted, insufficient_funds, not_simulated …) and a sentence for people. */
  error: string | null; errorCode: string | null; errorHumanReadable: string | null;
  balanceChanges: BalanceChange[];
};

export interface SimulationProvider {
  readonly name: string;
  simulate(req: SimulationRequest, nativeSymbol: string): Promise<SimulationResult>;
  /** Sequential: each transaction sees the state the previous ones left. */
  simulateBundle(reqs: SimulationRequest[], nativeSymbol: string): Promise<SimulationResult[]>;
}
