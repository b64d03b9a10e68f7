// The Intents API's transaction records and simulations (reference TransactionResponse,
// SignTransactionResponse, SimulationResponse). Fields the reference types as optional strings
// are omitted while unknown, never null. `signed_tx` is in the answer of the POST that signed, and
// on GET only with include_signed_tx=true (or 1): signed bytes are the transaction, ready to send,
// so they are not spread by default. Status adds `confirmed` to the reference's list (mined with a
// successful receipt). Never a key.
import { z } from 'zod';
import type { TransactionRow } from '../../domain/intents/transactions/transaction-repository.ts';
import type { StoredSimulation } from '../../domain/intents/transactions/simulation-commands.ts';
import { shape, timestamp, uuid, isoAlways, isoOrOmit, omitNull } from './registry.ts';
import { formatUnits } from '../../domain/intents/families/units.ts';

const hex = z.string().regex(/^0x[0-9a-f]*$/);
const weiText = z.string().regex(/^[0-9]+$/);
/** EIP-55 on EVM chains; bech32 (Bitcoin) or base58 (Solana) on theirs. */
const addressText = z.string().min(26).max(128);
/** EVM: 0x-hex of the EIP-2718 bytes; Bitcoin: hex of the raw transaction; Solana: base64 of the wire transaction. */
const signedBytes = z.string().min(1);
/** EVM and Bitcoin: 0x-less or 0x-hex hash; Solana: the base58 signature. */
const txHash = z.string().min(32).max(128);

export const TRANSACTION_STATUSES = ['pending', 'signed', 'sign_only', 'broadcast', 'confirmed', 'failed', 'simulation_failed', 'awaiting_approval', 'rejected'] as const;

export const TransactionSchema = shape('AgentTransaction', z.object({
  id: uuid,
  agent_id: uuid,
  /** The chain's name (GET /v1/chains), whichever way the request named it. */
  chain: z.string(),
  chain_id: z.number().int(),
  /** The signer: the agent's key's EIP-55 address (once signed). */
  from: addressText.optional(),
  to: addressText,
  value_wei: weiText,
  /**
   * pending → signed → broadcast → confirmed or failed; sign_only (never broadcast here); simulation_failed;
   * awaiting_approval (above the agent's tx_approval_threshold_eth: signed only once approved) → signed, or rejected.
   */
  status: z.enum(TRANSACTION_STATUSES),
  /** The signed bytes (signedBytes above): on the POST that signed it, and on GET with include_signed_tx=true. */
  signed_tx: signedBytes.optional(),
  /** EVM: 0x-hex keccak256; Bitcoin: the txid; Solana: the base58 signature. */
  tx_hash: txHash.optional(),
  /** Bitcoin, Solana and Cardano: the amount in the chain's major unit (BTC, SOL, ADA) or the token's, as sent in `value`; value_wei holds it in sat, lamport, lovelace or token base units. */
  amount: z.string().optional(),
  /** Bitcoin, Solana and Cardano: the network fee paid, in sat, lamport or lovelace. */
  fee: weiText.optional(),
  /** Solana SPL: the token's mint. */
  token_mint: z.string().optional(),
  error_message: z.string().optional(),
  nonce: z.number().int().optional(),
  tx_type: z.number().int().min(0).max(4).optional(),
  gas_limit: weiText.optional(),
  gas_price: weiText.optional(),
  max_fee_per_gas: weiText.optional(),
  max_priority_fee_per_gas: weiText.optional(),
  data: hex.optional(),
  simulation_id: uuid.optional(),
  simulation_status: z.string().optional(),
  /** Once mined. */
  block_number: z.number().int().optional(),
  gas_used: weiText.optional(),
  /** The approval an awaiting_approval transaction waits on (GET /v1/approvals/{id}/status). */
  approval_id: uuid.optional(),
  created_at: timestamp,
  signed_at: timestamp.optional(),
  broadcast_at: timestamp.optional(),
  confirmed_at: timestamp.optional(),
}), "An agent's transaction: what was asked, what was signed, and where it is on chain");

export const TransactionListSchema = shape('AgentTransactionList', z.object({
  transactions: z.array(TransactionSchema),
}), "The agent's transactions, newest first");

export const SignedTransactionSchema = shape('SignOnlyTransaction', z.object({
  id: uuid,
  signed_tx: signedBytes,
  tx_hash: txHash,
  from: addressText,
  to: addressText,
  chain: z.string(),
  chain_id: z.number().int(),
  /** EVM only (also tx_type, gas_limit and the fees). */
  nonce: z.number().int().optional(),
  value_wei: weiText,
  /** Bitcoin and Solana: the amount in the major unit, the fee in sat or lamport, the SPL mint. */
  amount: z.string().optional(),
  fee: weiText.optional(),
  token_mint: z.string().optional(),
  status: z.literal('sign_only'),
  tx_type: z.number().int().min(0).max(4).optional(),
  gas_limit: weiText.optional(),
  gas_price: weiText.optional(),
  max_fee_per_gas: weiText.optional(),
  max_priority_fee_per_gas: weiText.optional(),
  simulation_id: uuid.optional(),
  simulation_status: z.string().optional(),
}), 'A transaction signed by the agent\'s key for the caller to send (never broadcast here)');

const FAMILY_DECIMALS: Record<string, number> = { bitcoin: 8, solana: 9, xrp: 6, cardano: 6, tron: 6 };

/** A Bitcoin or Solana row's amount in its major unit, its fee and token; nothing for EVM rows. */
function familyFacts(t: TransactionRow): { amount?: string; fee?: string; token_mint?: string } {
  if (t.family === 'ethereum') return {};
  const mint = typeof t.details?.tokenMint === 'string' ? t.details.tokenMint : undefined;
  const decimals = mint !== undefined ? Number(t.details?.tokenDecimals ?? 6) : FAMILY_DECIMALS[t.family] ?? 0;
  return { amount: formatUnits(t.value_wei, decimals), fee: t.fee_native === null ? undefined : t.fee_native.toString(), token_mint: mint };
}

export function presentTransaction(t: TransactionRow, includeSignedTx: boolean): z.output<typeof TransactionSchema> {
  const dec = (v: bigint | null) => (v === null ? undefined : v.toString());
  return {
    id: t.id, agent_id: t.agent_id, chain: t.chain, chain_id: t.chain_id, from: omitNull(t.from_address), to: t.to_address,
    value_wei: t.value_wei.toString(), status: t.status, ...familyFacts(t),
    ...(includeSignedTx && t.signed_tx ? { signed_tx: t.signed_tx } : {}),
    tx_hash: omitNull(t.tx_hash), error_message: omitNull(t.error_message), nonce: omitNull(t.nonce), tx_type: omitNull(t.tx_type),
    gas_limit: dec(t.gas_limit), gas_price: dec(t.gas_price), max_fee_per_gas: dec(t.max_fee_per_gas),
    max_priority_fee_per_gas: dec(t.max_priority_fee_per_gas), data: omitNull(t.data),
    simulation_id: omitNull(t.simulation_id), simulation_status: omitNull(t.simulation_status),
    block_number: omitNull(t.block_number), gas_used: dec(t.gas_used), approval_id: omitNull(t.approval_id),
    created_at: isoAlways(t.created_at), signed_at: isoOrOmit(t.signed_at), broadcast_at: isoOrOmit(t.broadcast_at), confirmed_at: isoOrOmit(t.confirmed_at),
  };
}

export function presentSignedTransaction(t: TransactionRow): z.output<typeof SignedTransactionSchema> {
  const dec = (v: bigint | null) => (v === null ? undefined : v.toString());
  return {
    id: t.id, signed_tx: t.signed_tx!, tx_hash: t.tx_hash!, from: t.from_address!, to: t.to_address, chain: t.chain, chain_id: t.chain_id,
    nonce: omitNull(t.nonce), value_wei: t.value_wei.toString(), ...familyFacts(t), status: 'sign_only', tx_type: omitNull(t.tx_type), gas_limit: dec(t.gas_limit),
    gas_price: dec(t.gas_price), max_fee_per_gas: dec(t.max_fee_per_gas), max_priority_fee_per_gas: dec(t.max_priority_fee_per_gas),
    simulation_id: omitNull(t.simulation_id), simulation_status: omitNull(t.simulation_status),
  };
}

const BalanceChangeSchema = z.object({
  address: addressText, token: z.string(), token_symbol: z.string(), before: z.string(), after: z.string(), change: z.string(),
});

export const SimulationSchema = shape('TransactionSimulation', z.object({
  simulation_id: uuid,
  status: z.enum(['success', 'reverted', 'error']),
  gas_used: z.number().int().optional(),
  balance_changes: z.array(BalanceChangeSchema),
  error: z.string().optional(),
  error_code: z.string().optional(),
  error_human_readable: z.string().optional(),
  revert_reason: z.string().optional(),
  simulated_at: timestamp,
}), "A transaction run against the chain as the agent's address, without signing");

export const SimulationBundleSchema = shape('TransactionSimulationBundle', z.object({
  simulations: z.array(SimulationSchema),
}), 'A sequence of transactions simulated in order, each on the state the previous ones left');

export function presentSimulation(s: StoredSimulation): z.output<typeof SimulationSchema> {
  return {
    simulation_id: s.id, status: s.status, gas_used: s.gasUsed === null ? undefined : Number(s.gasUsed),
    balance_changes: s.balanceChanges, error: omitNull(s.error), error_code: omitNull(s.errorCode),
    error_human_readable: omitNull(s.errorHumanReadable), revert_reason: omitNull(s.revertReason), simulated_at: isoAlways(s.simulatedAt),
  };
}
