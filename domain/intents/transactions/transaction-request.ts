// A transaction as an agent asks for it (POST /v1/agents/{agent_id}/transactions and
// …/transactions/sign; reference SubmitTransactionRequest), amounts already in wei. Fields the
// agent leaves out are filled from the chain just before signing: the nonce (the node's pending
// count, above our own signed-but-unmined ones), the gas limit (eth_estimateGas, with a margin
// for contract calls) and the fees (EIP-1559 from the latest block, or the gas price on chains
// without a base fee). Sending gas_price asks for a legacy (type 0) transaction.
import { createHash } from 'node:crypto';
import type { Address, Hex } from 'viem';
import type { TransactionFields } from '../evm-transaction.ts';

export type TransactionRequest = {
  chain: string | number;
  /** A chain_id sent beside a chain name: it must be that chain's. */
  chainIdCheck?: number;
  to: Address;
  valueWei: bigint;
  data?: Hex;
  nonce?: number;
  gasLimit?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  simulateFirst?: boolean;
  signingKeyPath?: string;
};

/** What the chain fills in when the request leaves it out. */
export type ChainFacts = {
  nonce: number;
  gasLimit: bigint;
  fees: { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 'legacy'; gasPrice: bigint };
};

/** Extra gas over the estimate for a call with data: state may change between estimate and inclusion. */
export const withGasMargin = (estimate: bigint, hasData: boolean): bigint => (hasData ? (estimate * 12n + 9n) / 10n : estimate);

/** The request and the chain's facts as the fields of an EIP-2718 transaction (type 0 or 2). */
export function transactionFields(r: TransactionRequest, facts: ChainFacts): TransactionFields {
  const base = { to: r.to, value: r.valueWei, data: r.data, nonce: facts.nonce, gas_limit: facts.gasLimit };
  if (facts.fees.type === 'legacy') return { ...base, tx_type: 0, gas_price: facts.fees.gasPrice };
  return { ...base, tx_type: 2, max_fee_per_gas: facts.fees.maxFeePerGas, max_priority_fee_per_gas: facts.fees.maxPriorityFeePerGas };
}

/** The fees the request names, or null to ask the chain. */
export function requestedFees(r: TransactionRequest): ChainFacts['fees'] | null {
  if (r.gasPrice !== undefined) return { type: 'legacy', gasPrice: r.gasPrice };
  if (r.maxFeePerGas !== undefined && r.maxPriorityFeePerGas !== undefined) {
    return { type: 'eip1559', maxFeePerGas: r.maxFeePerGas, maxPriorityFeePerGas: r.maxPriorityFeePerGas };
  }
  return null;
}

/**
 * SHA-256 of what the request asks for (and whether it is to be broadcast): the same
 * Idempotency-Key with a different digest is another transaction, refused rather than replayed.
 */
export function requestDigest(r: TransactionRequest, chainId: number, mode: 'submit' | 'sign_only'): string {
  const canonical = [mode, chainId, r.to.toLowerCase(), r.valueWei, r.data ?? '', r.nonce ?? '', r.gasLimit ?? '', r.gasPrice ?? '',
    r.maxFeePerGas ?? '', r.maxPriorityFeePerGas ?? ''].map(String).join('|');
  return createHash('sha256').update(canonical).digest('hex');
}
