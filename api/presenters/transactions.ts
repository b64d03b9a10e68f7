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

const hex = z.string().regex(/^0x[0-9a-f]*$/);
const hash = z.string().regex(/^0x[0-9a-f]{64}$/);
const weiText = z.string().regex(/^[0-9]+$/);
const addressText = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

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
  /** The signed EIP-2718 serialization: on the POST that signed it, and on GET with include_signed_tx=true. */
  signed_tx: hex.optional(),
  tx_hash: hash.optional(),
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
  signed_tx: hex,
  tx_hash: hash,
  from: addressText,
  to: addressText,
  chain: z.string(),
  chain_id: z.number().int(),
  nonce: z.number().int(),
  value_wei: weiText,
  status: z.literal('sign_only'),
  tx_type: z.number().int().min(0).max(4),
  gas_limit: weiText,
  gas_price: weiText.optional(),
  max_fee_per_gas: weiText.optional(),
  max_priority_fee_per_gas: weiText.optional(),
  simulation_id: uuid.optional(),
  simulation_status: z.string().optional(),
}), 'A transaction signed by the agent\'s key for the caller to send (never broadcast here)');

export function presentTransaction(t: TransactionRow, includeSignedTx: boolean): z.output<typeof TransactionSchema> {
  const dec = (v: bigint | null) => (v === null ? undefined : v.toString());
  return {
    id: t.id, agent_id: t.agent_id, chain: t.chain, chain_id: t.chain_id, from: omitNull(t.from_address), to: t.to_address,
    value_wei: t.value_wei.toString(), status: t.status,
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
    nonce: t.nonce!, value_wei: t.value_wei.toString(), status: 'sign_only', tx_type: t.tx_type!, gas_limit: t.gas_limit!.toString(),
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
