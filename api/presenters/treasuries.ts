// Safe treasuries, their access requests and proposals (reference TreasuryResponse,
// TreasurySignerResponse, AccessRequestResponse, TreasuryProposalResponse). Fields the reference
// marks nullable are sent as null; others that may be absent are omitted.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways, isoOrOmit, omitNull } from './registry.ts';
import type { TreasuryWithSigners } from '../../domain/treasury/safe/treasury-access.ts';
import type { SignerRow } from '../../domain/treasury/safe/treasury-repository.ts';
import type { AccessRequestRow } from '../../domain/treasury/safe/access-repository.ts';
import type { ProposalView } from '../../domain/treasury/safe/proposal-view.ts';
import type { ProposalStatus } from '../../domain/treasury/safe/proposal-repository.ts';

const REFERENCE_STATUSES = ['pending', 'approved', 'executing', 'executed', 'rejected', 'expired'] as const;
type ReferenceStatus = (typeof REFERENCE_STATUSES)[number];
const CLOSED_REASONS = { cancelled: 'cancelled', failed: 'execution_failed' } as const;
const referenceStatus = (s: ProposalStatus): ReferenceStatus => (s === 'cancelled' || s === 'failed' ? 'rejected' : s);

export const TreasurySignerSchema = shape('TreasurySigner', z.object({
  id: uuid,
  signer_type: z.enum(['user', 'agent']),
  signer_id: uuid,
  signer_address: z.string(),
  added_at: timestamp,
}));

export const TreasurySchema = shape('Treasury', z.object({
  id: uuid,
  name: z.string(),
  safe_address: z.string(),
  chain: z.string(),
  chain_id: z.number().int(),
  threshold: z.number().int(),
  created_by: uuid,
  /** The agent whose key pays execTransaction's gas when set (else the first agent signer with a key). */
  gas_payer_agent_id: uuid.nullable(),
  signers: z.array(TreasurySignerSchema),
  created_at: timestamp,
}), 'A multisig treasury on a Safe');

export const TreasuryListSchema = shape('TreasuryList', z.object({ treasuries: z.array(TreasurySchema) }));

export const AccessRequestSchema = shape('TreasuryAccessRequest', z.object({
  id: uuid,
  treasury_id: uuid,
  agent_id: uuid,
  status: z.enum(['pending', 'approved', 'denied']),
  reason: z.string().optional(),
  /** The approval that shows this request in the approval queue. */
  approval_id: uuid.optional(),
  requested_at: timestamp,
  resolved_by: uuid.optional(),
  resolved_at: timestamp.optional(),
}));

export const AccessRequestListSchema = shape('TreasuryAccessRequestList', z.object({ requests: z.array(AccessRequestSchema) }));

export const ProposalSignatureSchema = shape('TreasuryProposalSignature', z.object({
  id: uuid,
  signer_id: uuid,
  signer_type: z.enum(['user', 'agent']),
  signer_address: z.string(),
  /** The 65-byte EIP-712 signature; absent for a rejection that came without one. */
  signature: z.string().optional(),
  decision: z.enum(['approve', 'reject']),
  created_at: timestamp,
}));

export const ProposalSchema = shape('TreasuryProposal', z.object({
  id: uuid,
  treasury_id: uuid,
  proposed_by: uuid,
  proposed_by_type: z.enum(['user', 'agent']),
  chain: z.string(),
  chain_id: z.number().int(),
  safe_address: z.string(),
  to_address: z.string(),
  value_wei: z.string(),
  data_hex: z.string().nullable(),
  operation: z.number().int(),
  /** The Safe's getTransactionHash(...) of this SafeTx: what signers sign (EIP-712). */
  safe_tx_hash: z.string().nullable(),
  nonce: z.number().int().nullable(),
  /** The reference's statuses: a cancelled proposal, or one whose execution failed, is rejected (closed_reason says which). */
  status: z.enum(REFERENCE_STATUSES),
  /**
   * Why a rejected proposal closed when no signer rejected it: the proposer cancelled it, its
   * execution failed, or a human rejected the agent's proposal in the approval queue (error_message says which).
   */
  closed_reason: z.enum(['cancelled', 'execution_failed', 'approval_rejected']).optional(),
  /** An agent's proposal: its approval in /v1/approvals, which a human approves before it can be executed. */
  approval_id: uuid.optional(),
  threshold: z.number().int(),
  expires_at: timestamp.nullable(),
  executed_tx_hash: z.string().nullable(),
  executed_at: timestamp.nullable(),
  /** Why an execution failed. */
  error_message: z.string().optional(),
  signatures: z.array(ProposalSignatureSchema),
  created_at: timestamp,
}), 'A Safe transaction proposal with its collected signatures');

export const ProposalListSchema = shape('TreasuryProposalList', z.object({ proposals: z.array(ProposalSchema) }));

export const presentSigner = (s: SignerRow): z.output<typeof TreasurySignerSchema> => ({
  id: s.id, signer_type: s.signer_type, signer_id: s.signer_id, signer_address: s.signer_address, added_at: isoAlways(s.added_at),
});

export const presentTreasury = (t: TreasuryWithSigners): z.output<typeof TreasurySchema> => ({
  id: t.id, name: t.name, safe_address: t.safe_address, chain: t.chain, chain_id: t.chain_id, threshold: t.threshold, created_by: t.created_by,
  gas_payer_agent_id: t.gas_payer_agent_id, signers: t.signers.map(presentSigner), created_at: isoAlways(t.created_at),
});

export const presentTreasuryList = (rows: TreasuryWithSigners[]): z.output<typeof TreasuryListSchema> => ({ treasuries: rows.map(presentTreasury) });

export const presentAccessRequest = (r: AccessRequestRow): z.output<typeof AccessRequestSchema> => ({
  id: r.id, treasury_id: r.treasury_id, agent_id: r.agent_id, status: r.status, reason: omitNull(r.reason), approval_id: omitNull(r.approval_id),
  requested_at: isoAlways(r.requested_at), resolved_by: omitNull(r.resolved_by), resolved_at: isoOrOmit(r.resolved_at),
});

export const presentAccessRequestList = (rows: AccessRequestRow[]): z.output<typeof AccessRequestListSchema> => ({ requests: rows.map(presentAccessRequest) });

function closedReason(p: ProposalView): z.output<typeof ProposalSchema>['closed_reason'] {
  if (p.status === 'cancelled' || p.status === 'failed') return CLOSED_REASONS[p.status];
  // Only the approval queue's resumer closes a rejected proposal with a message (proposal-approval.ts).
  return p.status === 'rejected' && p.error_message !== null ? 'approval_rejected' : undefined;
}

export const presentProposal = (p: ProposalView): z.output<typeof ProposalSchema> => ({
  id: p.id, treasury_id: p.treasury_id, proposed_by: p.proposed_by, proposed_by_type: p.proposed_by_type, chain: p.chain, chain_id: p.chain_id,
  safe_address: p.safe_address, to_address: p.to_address, value_wei: p.value_wei.toString(), data_hex: p.data_hex, operation: p.operation,
  safe_tx_hash: p.safe_tx_hash, nonce: p.nonce, status: referenceStatus(p.status),
  closed_reason: closedReason(p), approval_id: omitNull(p.approval_id), threshold: p.threshold, expires_at: isoAlways(p.expires_at),
  executed_tx_hash: p.executed_tx_hash, executed_at: p.executed_at ? isoAlways(p.executed_at) : null, error_message: omitNull(p.error_message),
  signatures: p.signatures.map((s) => ({
    id: s.id, signer_id: s.signer_id, signer_type: s.signer_type, signer_address: s.signer_address, signature: omitNull(s.signature), decision: s.decision,
    created_at: isoAlways(s.created_at),
  })),
  created_at: isoAlways(p.created_at),
});

export const presentProposalList = (rows: ProposalView[]): z.output<typeof ProposalListSchema> => ({ proposals: rows.map(presentProposal) });
