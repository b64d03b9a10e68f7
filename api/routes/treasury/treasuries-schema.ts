// Input schemas of the Safe treasury routes (reference CreateTreasuryRequest, UpdateTreasuryRequest,
// AddSignerRequest, CreateTreasuryProposalRequest, SignTreasuryProposalRequest). Addresses come
// out EIP-55 checksummed, value_wei as bigint.
import { z } from 'zod';
import { idParam } from '../../input/fields.ts';
import { address, hexBytes, opt, wei } from '../agents/evm-fields.ts';

const name = z.string().trim().min(1, { message: 'must be 1–128 characters' }).max(128, { message: 'must be 1–128 characters' });
const threshold = z.number().int().min(1).max(1000);
const chainId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const signerBody = z.object({
  signer_type: z.enum(['user', 'agent'], { message: 'must be user or agent' }),
  signer_id: z.uuid({ message: 'must be a UUID' }),
  signer_address: address,
}).transform((s) => ({ signerType: s.signer_type, signerId: s.signer_id, signerAddress: s.signer_address }));

export const createTreasuryBody = z.object({
  name,
  safe_address: address,
  chain: opt(z.string().trim().min(1).max(100)),
  chain_id: opt(chainId),
  threshold: opt(threshold).transform((v) => v ?? 1),
  signers: opt(z.array(signerBody).max(100)).transform((v) => v ?? []),
  /** Ours: the agent whose provisioned key pays the gas of execTransaction. */
  gas_payer_agent_id: opt(z.uuid({ message: 'must be a UUID' })),
});

export const updateTreasuryBody = z.object({
  name: opt(name),
  threshold: opt(threshold),
  gas_payer_agent_id: z.uuid({ message: 'must be a UUID' }).nullable().optional(),
}).refine((b) => b.name !== undefined || b.threshold !== undefined || b.gas_payer_agent_id !== undefined, { message: 'name, threshold or gas_payer_agent_id is required' });

export const accessRequestBody = z.object({ reason: opt(z.string().max(2000)) }).optional().transform((b) => ({ reason: b?.reason ?? null }));

/**
 * Both published spellings (reference facts §22): the REST body `{to_address, value_wei, chain,
 * chain_id?, data_hex?, operation?}` and the newer MCP client's `{to, value_wei, data, operation,
 * safe_tx_hash, nonce}` (no chain: the treasury's). A safe_tx_hash or nonce sent along must be
 * what the service computes from the chain.
 */
export const createProposalBody = z.object({
  to_address: opt(address),
  to: opt(address),
  value_wei: wei,
  chain: opt(z.string().trim().min(1).max(100)),
  chain_id: opt(chainId),
  data_hex: opt(hexBytes),
  data: opt(hexBytes),
  operation: opt(z.union([z.literal(0), z.literal(1)], { message: 'must be 0 (Call) or 1 (DelegateCall)' })).transform((v) => v ?? 0),
  safe_tx_hash: opt(z.string().regex(/^0x[0-9a-fA-F]{64}$/, { message: 'must be a 0x-hex 32-byte hash' }).transform((v) => v.toLowerCase())),
  nonce: opt(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)),
  /** Ours: seconds until the proposal expires (default 7 days). */
  expires_in_seconds: opt(z.number().int().min(1).max(90 * 24 * 3600)),
  /** Ours: an agent's why, shown with its proposal's approval in the queue. */
  reason: opt(z.string().trim().min(1).max(2000)),
}).superRefine((b, ctx) => {
  if (b.to_address === undefined && b.to === undefined) ctx.addIssue({ code: 'custom', path: ['to_address'], message: 'is required (`to` is accepted too)' });
}).transform((b) => ({
  to_address: (b.to_address ?? b.to)!, value_wei: b.value_wei, chain: b.chain, chain_id: b.chain_id, data_hex: b.data_hex ?? b.data,
  operation: b.operation, expected_safe_tx_hash: b.safe_tx_hash, expected_nonce: b.nonce, expires_in_seconds: b.expires_in_seconds,
  reason: b.reason,
}));

/** `signer_address` (newer MCP client): when sent, it must be the caller's signer address. */
export const signProposalBody = z.object({
  decision: z.enum(['approve', 'reject'], { message: 'must be approve or reject' }),
  signature: opt(z.string().trim().max(200)),
  signer_address: address.optional(),
});

export const treasuryParams = z.object({ treasury_id: idParam });
export const signerParams = z.object({ treasury_id: idParam, signer_id: idParam });
export const accessRequestParams = z.object({ treasury_id: idParam, request_id: idParam });
export const proposalParams = z.object({ treasury_id: idParam, proposal_id: idParam });
/** The reference's statuses (a cancelled or failed proposal is listed as rejected). */
export const proposalListQuery = z.object({ status: z.enum(['pending', 'approved', 'executing', 'executed', 'rejected', 'expired']).optional() });
