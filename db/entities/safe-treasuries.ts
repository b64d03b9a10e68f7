// Multisig treasuries on a Safe (migration 0035; domain/treasury/safe): the treasury and its
// signers, agents' access requests, proposals and their signatures.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';
import { Agent } from './agents.ts';

export const Treasury = defineEntity({
  name: 'Treasury',
  tableName: 'treasuries',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    name: p.text(),
    /** EIP-55 checksummed. */
    safe_address: p.text(),
    chain: p.text(),
    chain_id: p.bigint('number'),
    threshold: p.integer().check('threshold >= 1'),
    /** The user who created it. */
    created_by: p.uuid(),
    /** The agent whose provisioned key pays the gas of `execTransaction` (null: the first agent signer with a key). */
    gas_payer_agent_id: () => p.manyToOne(Agent).mapToPk().fieldName('gas_payer_agent_id').nullable().deleteRule('set null'),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
  uniques: [{ name: 'treasuries_safe_unique', properties: ['org_id', 'chain_id', 'safe_address'] }],
});
export type TreasuryEntityRow = InferEntity<typeof Treasury>;

export const TreasurySigner = defineEntity({
  name: 'TreasurySigner',
  tableName: 'treasury_signers',
  properties: {
    id: p.uuid().primary(),
    treasury_id: () => p.manyToOne(Treasury).mapToPk().fieldName('treasury_id').deleteRule('cascade'),
    signer_type: p.enum(['user', 'agent']),
    signer_id: p.uuid(),
    signer_address: p.text(),
    added_at: p.datetime().defaultRaw('now()'),
  },
  uniques: [{ name: 'treasury_signers_address_unique', properties: ['treasury_id', 'signer_address'] }],
});

export const TreasuryAccessRequest = defineEntity({
  name: 'TreasuryAccessRequest',
  tableName: 'treasury_access_requests',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    treasury_id: () => p.manyToOne(Treasury).mapToPk().fieldName('treasury_id').deleteRule('cascade'),
    agent_id: () => p.manyToOne(Agent).mapToPk().fieldName('agent_id').deleteRule('cascade'),
    status: p.enum(['pending', 'approved', 'denied']).default('pending'),
    reason: p.text().nullable(),
    /** The approvals row that shows the request in the approval queue. */
    approval_id: p.uuid().nullable(),
    requested_at: p.datetime().defaultRaw('now()'),
    resolved_by: p.uuid().nullable(),
    resolved_at: p.datetime().nullable(),
  },
  uniques: [{ name: 'treasury_access_requests_pending_unique', properties: ['treasury_id', 'agent_id'], where: "status = 'pending'" }],
  indexes: [{ name: 'treasury_access_requests_treasury_idx', properties: ['treasury_id', 'requested_at'] }],
});

export const TreasuryProposal = defineEntity({
  name: 'TreasuryProposal',
  tableName: 'treasury_proposals',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    treasury_id: () => p.manyToOne(Treasury).mapToPk().fieldName('treasury_id').deleteRule('cascade'),
    proposed_by: p.uuid(),
    proposed_by_type: p.enum(['user', 'agent']),
    chain: p.text(),
    chain_id: p.bigint('number'),
    safe_address: p.text(),
    to_address: p.text(),
    value_wei: p.bigint('bigint').columnType('numeric(78,0)').check('value_wei >= 0'),
    data_hex: p.text().nullable(),
    operation: p.smallint().default(0).check('operation = ANY (ARRAY[0, 1])'),
    safe_tx_hash: p.text(),
    /** The Safe's nonce the transaction was built on. */
    nonce: p.bigint('number'),
    status: p.enum(['pending', 'approved', 'executing', 'executed', 'rejected', 'expired', 'cancelled', 'failed']).default('pending'),
    threshold: p.integer(),
    expires_at: p.datetime(),
    /** The agent_transactions row that carries `execTransaction`. */
    transaction_id: p.uuid().nullable(),
    executed_tx_hash: p.text().nullable(),
    executed_at: p.datetime().nullable(),
    error_message: p.text().nullable(),
    /** An agent's proposal: its approval in the queue, approved before the proposal can execute. */
    approval_id: p.uuid().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'treasury_proposals_treasury_idx', properties: ['treasury_id', 'created_at'] }],
});

export const TreasuryProposalSignature = defineEntity({
  name: 'TreasuryProposalSignature',
  tableName: 'treasury_proposal_signatures',
  properties: {
    id: p.uuid().primary(),
    proposal_id: () => p.manyToOne(TreasuryProposal).mapToPk().fieldName('proposal_id').deleteRule('cascade'),
    signer_id: p.uuid(),
    signer_type: p.enum(['user', 'agent']),
    signer_address: p.text(),
    /** The 65-byte EIP-712 signature over safe_tx_hash (null for a reject without one). */
    signature: p.text().nullable(),
    decision: p.enum(['approve', 'reject']),
    created_at: p.datetime().defaultRaw('now()'),
  },
  uniques: [{ name: 'treasury_proposal_signatures_unique', properties: ['proposal_id', 'signer_address'] }],
});
