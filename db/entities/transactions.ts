// The Intents API's transactions, the per-agent daily spend counters and simulation answers
// (migrations 0021, 0024, 0026, 0036; domain/intents/transactions).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';
import { Agent } from './agents.ts';

// Wei and gas amounts are numeric(78,0) / numeric(20,0) (a uint256 does not fit a bigint): mapped to
// JS bigint, as domain/intents/transactions reads them.
const wei = () => p.bigint('bigint').columnType('numeric(78,0)');
const gas = () => p.bigint('bigint').columnType('numeric(20,0)');

export const AgentTransaction = defineEntity({
  name: 'AgentTransaction',
  tableName: 'agent_transactions',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    agent_id: () => p.manyToOne(Agent).mapToPk().fieldName('agent_id').deleteRule('cascade'),
    chain: p.text(),
    chain_id: p.bigint('number'),
    from_address: p.text().nullable(),
    to_address: p.text(),
    value_wei: wei().check('value_wei >= 0'),
    data: p.text().nullable(),
    nonce: p.bigint('number').nullable(),
    tx_type: p.smallint().nullable(),
    gas_limit: gas().nullable(),
    gas_price: wei().nullable(),
    max_fee_per_gas: wei().nullable(),
    max_priority_fee_per_gas: wei().nullable(),
    status: p.enum(['pending', 'signed', 'sign_only', 'broadcast', 'confirmed', 'failed', 'simulation_failed', 'awaiting_approval', 'rejected']),
    signed_tx: p.text().nullable(),
    tx_hash: p.text().nullable(),
    error_message: p.text().nullable(),
    /** The UTC day ('YYYY-MM-DD') whose spend and count the row holds; null once released. */
    reserved_day: p.date().nullable(),
    idempotency_key: p.text().nullable(),
    /** SHA-256 of the request's fields: tells a replay from another request under the same key. */
    request_digest: p.text().nullable(),
    simulation_id: p.uuid().nullable(),
    simulation_status: p.text().nullable(),
    block_number: p.bigint('number').nullable(),
    gas_used: gas().nullable(),
    broadcast_attempts: p.integer().default(0),
    created_by: p.text(),
    created_at: p.datetime().defaultRaw('now()'),
    signed_at: p.datetime().nullable(),
    broadcast_at: p.datetime().nullable(),
    confirmed_at: p.datetime().nullable(),
    updated_at: p.datetime().defaultRaw('now()'),
    /** The request named the nonce: never renumbered (0026). */
    nonce_chosen: p.boolean().default(false),
    /** The approval a transaction above the agent's tx_approval_threshold_eth waits on (0036). */
    approval_id: p.uuid().nullable(),
    /** The chain family (0038); value_wei holds the family's smallest unit (sat, lamport). */
    family: p.text().default('ethereum'),
    /** The network fee paid, in the family's smallest unit (non-EVM families). */
    fee_native: wei().nullable(),
    /** The family's facts (Bitcoin change and fee rate, Solana blockhash …). */
    details: p.json<Record<string, string | number | boolean | null>>().nullable(),
  },
  checks: [
    {
      name: 'agent_transactions_signed_has_bytes',
      expression: "status IN ('pending', 'simulation_failed', 'failed', 'awaiting_approval', 'rejected') OR (signed_tx IS NOT NULL AND tx_hash IS NOT NULL)",
    },
  ],
  uniques: [
    // One row per agent and Idempotency-Key; partial, as most requests carry no key (0024).
    { name: 'agent_transactions_idempotency_unique', properties: ['agent_id', 'idempotency_key'], where: 'idempotency_key IS NOT NULL' },
  ],
  indexes: [
    { name: 'agent_transactions_agent_idx', columns: [{ name: 'agent_id' }, { name: 'created_at', sort: 'DESC' }] },
    { name: 'agent_transactions_org_idx', properties: ['org_id'] },
    { name: 'agent_transactions_open_idx', properties: ['updated_at'], where: "status IN ('pending', 'signed', 'broadcast')" },
    { name: 'agent_transactions_sender_idx', properties: ['chain_id', 'from_address', 'nonce'], where: "status IN ('signed', 'broadcast')" },
  ],
});
export type AgentTransactionRow = InferEntity<typeof AgentTransaction>;

/** Per agent and UTC day: what the guardrails tx_daily_limit_eth and tx_max_per_day cap. */
export const AgentTxDailyUsage = defineEntity({
  name: 'AgentTxDailyUsage',
  tableName: 'agent_tx_daily_usage',
  properties: {
    agent_id: () => p.manyToOne(Agent).mapToPk().fieldName('agent_id').primary().deleteRule('cascade'),
    day: p.date().primary(),
    spent_wei: wei().default(0).check('spent_wei >= 0'),
    tx_count: p.integer().default(0).check('tx_count >= 0'),
  },
  primaryKeys: ['agent_id', 'day'],
});
export type AgentTxDailyUsageRow = InferEntity<typeof AgentTxDailyUsage>;

/** A coin a recorded Bitcoin transaction spends (0038): reserved once, so no two transactions share it. */
export const BitcoinSpentOutpoint = defineEntity({
  name: 'BitcoinSpentOutpoint',
  tableName: 'bitcoin_spent_outpoints',
  properties: {
    chain_id: p.bigint('number').primary(),
    /** `txid:vout`. */
    outpoint: p.text().primary(),
    transaction_id: () => p.manyToOne(AgentTransaction).mapToPk().fieldName('transaction_id').deleteRule('cascade'),
    created_at: p.datetime().defaultRaw('now()'),
  },
  primaryKeys: ['chain_id', 'outpoint'],
  indexes: [{ name: 'bitcoin_spent_outpoints_tx_idx', properties: ['transaction_id'] }],
});
export type BitcoinSpentOutpointRow = InferEntity<typeof BitcoinSpentOutpoint>;

/** Per agent, chain family and UTC day: the spend the per-chain guardrails cap, in the family's smallest unit (0038). */
export const AgentFamilyDailyUsage = defineEntity({
  name: 'AgentFamilyDailyUsage',
  tableName: 'agent_family_daily_usage',
  properties: {
    agent_id: () => p.manyToOne(Agent).mapToPk().fieldName('agent_id').primary().deleteRule('cascade'),
    family: p.text().primary(),
    day: p.date().primary(),
    spent: wei().default(0).check('spent >= 0'),
  },
  primaryKeys: ['agent_id', 'family', 'day'],
});
export type AgentFamilyDailyUsageRow = InferEntity<typeof AgentFamilyDailyUsage>;

export const TransactionSimulation = defineEntity({
  name: 'TransactionSimulation',
  tableName: 'transaction_simulations',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    agent_id: () => p.manyToOne(Agent).mapToPk().fieldName('agent_id').deleteRule('cascade'),
    chain_id: p.bigint('number'),
    status: p.enum(['success', 'reverted', 'error']),
    result: p.json<Record<string, unknown>>(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'transaction_simulations_agent_idx', columns: [{ name: 'agent_id' }, { name: 'created_at', sort: 'DESC' }] }],
});
export type TransactionSimulationRow = InferEntity<typeof TransactionSimulation>;
