// A proposal with its signatures, and which of those count: approvals (with a signature) by
// addresses that are signers of the treasury now. A removed signer's signature stays on record
// but no longer counts toward the threshold.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Hex } from 'viem';
import type { SignerRow } from './treasury-repository.ts';
import { signaturesOf, type ProposalRow, type SignatureRow } from './proposal-repository.ts';

export type ProposalView = ProposalRow & { signatures: SignatureRow[] };

export async function withSignatures(em: EntityManager, rows: ProposalRow[]): Promise<ProposalView[]> {
  const sigs = await signaturesOf(em, rows.map((r) => r.id));
  return rows.map((r) => ({ ...r, signatures: sigs.filter((s) => s.proposal_id === r.id) }));
}

export function countingApprovals(signatures: SignatureRow[], signers: SignerRow[]): { owner: string; signature: Hex }[] {
  const current = new Set(signers.map((s) => s.signer_address));
  return signatures
    .filter((s) => s.decision === 'approve' && s.signature !== null && current.has(s.signer_address))
    .map((s) => ({ owner: s.signer_address, signature: s.signature as Hex }));
}

/** Rejections by current signers. */
export function countingRejections(signatures: SignatureRow[], signers: SignerRow[]): number {
  const current = new Set(signers.map((s) => s.signer_address));
  return signatures.filter((s) => s.decision === 'reject' && current.has(s.signer_address)).length;
}

/** The data of a proposal.* event: what it is and where it stands, never a signature. */
export function proposalEventData(p: ProposalRow, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    proposal_id: p.id, treasury_id: p.treasury_id, safe_address: p.safe_address, chain: p.chain, chain_id: p.chain_id,
    to_address: p.to_address, value_wei: p.value_wei.toString(), safe_tx_hash: p.safe_tx_hash, nonce: p.nonce, status: p.status, ...extra,
  };
}
