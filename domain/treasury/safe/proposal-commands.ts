// Proposals on a Safe treasury (reference facts §22): create, list, get, sign (approve or reject),
// cancel, execute. A proposal is one SafeTx built on the Safe's current nonce (read from chain);
// its safe_tx_hash is what the Safe's getTransactionHash returns. Who may:
//   create:  a user signer of the treasury, or an agent holding an approved access request;
//   sign:    a signer (user or agent); a user posts its EIP-712 signature, an agent may leave it
//            out and the service signs with the agent's provisioned key (users have no key here);
//   cancel:  the proposer, while pending or approved;
//   execute: humans only (the creator, an owner or admin, or a user signer), once the approvals
//            of current signers reach the threshold: the proposal moves to executing and the
//            durable workflow `treasury-exec:<id>` sends execTransaction (execution.ts).
// Expiry is a Temporal timer per proposal (`treasury-proposal-expiry:<id>`).
import { randomUUID } from 'node:crypto';
import type { Address, Hex } from 'viem';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import { callerOf, creatorType, type Principal } from '../../auth/principal.ts';
import type { AgentSigner } from '../../intents/signing-keys/signer.ts';
import type { WalletDigestSigner } from '../wallets/wallet-digest-signer.ts';
import { emitEvent } from '../../events/outbox.ts';
import { Problem, badRequest, conflict, forbidden, invalidField, notFound } from '../../errors.ts';
import { roleOf } from '../../access/roles.ts';
import type { SafeChain } from './safe-chain.ts';
import type { SafeTreasuryClient } from './client.ts';
import { normalizeSignature, packSignature, safeTxHash, signerOf } from './safe-tx.ts';
import { hasApprovedAccess } from './access-repository.ts';
import { signersOf, type SignerRow, type TreasuryRow } from './treasury-repository.ts';
import { loadTreasury, signerEntryOf } from './treasury-access.ts';
import {
  findProposal, insertProposal, listProposals, moveProposal, upsertSignature, type ProposalRow, type ProposalStatus,
} from './proposal-repository.ts';
import { countingApprovals, countingRejections, proposalEventData, withSignatures, type ProposalView } from './proposal-view.ts';
import { gasPayerOf } from './gas-payer.ts';
import { closeProposalApproval, openProposalApproval, requireApprovedProposal } from './proposal-approval.ts';
import type { ApprovalsClient } from '../../approvals/client.ts';

/** How long a proposal waits for its signatures unless its proposer says otherwise. */
export const DEFAULT_PROPOSAL_TTL_SECONDS = 7 * 24 * 3600;

export type ProposalInput = {
  to_address: Address; value_wei: bigint; chain?: string; chain_id?: number; data_hex?: Hex; operation: 0 | 1; expires_in_seconds?: number;
  /** What the client computed (newer MCP client): refused when it is not what the chain gives. */
  expected_safe_tx_hash?: string; expected_nonce?: number;
  /** An agent's why, shown with its proposal's approval (a human's proposal opens none). */
  reason?: string;
};
/** `confirm`: X-Auth-Confirm, needed when a user approves with their treasury wallet's key (no `signature`). */
export type SignInput = { decision: 'approve' | 'reject'; signature?: string; signer_address?: Address; confirm?: string };

/**
 * `wallets`: humans' EVM treasury wallets (domain/treasury/wallets), a user's key when they omit
 * the signature; `waits`: the approval queue's workflows (an agent's proposal waits there).
 */
export type ProposalDeps = {
  db: () => EntityManager; audit: ActionAudit; safe: SafeChain; signer: AgentSigner; client: SafeTreasuryClient;
  wallets: Pick<WalletDigestSigner, 'evmAddress' | 'sign'>; waits: Pick<ApprovalsClient, 'startWait'>;
};

const OPEN: ProposalStatus[] = ['pending', 'approved'];
const isPast = (d: Date | string) => new Date(d).getTime() <= Date.now();

export class ProposalCommands {
  private readonly d: ProposalDeps;

  constructor(deps: ProposalDeps) {
    this.d = deps;
  }

  async create(ctx: ActionContext, treasuryId: string, input: ProposalInput): Promise<ProposalView> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const t = await loadTreasury(em, p, treasuryId);
    const signers = await signersOf(em, [t.id]);
    if (p.type === 'agent') {
      if (!await hasApprovedAccess(em, t.id, p.id)) throw forbidden('This agent has no approved access to the treasury: POST /v1/treasury/{id}/access-requests, then a human approves it');
    } else if (!signerEntryOf(signers, p)) {
      throw forbidden('Only a signer of the treasury (or an agent with approved access) can propose');
    }
    if (input.chain !== undefined && input.chain !== t.chain) throw invalidField('chain', `the treasury's Safe is on ${t.chain}`);
    if (input.chain_id !== undefined && input.chain_id !== t.chain_id) throw invalidField('chain_id', `the treasury's Safe is on chain_id ${t.chain_id}`);
    if (input.operation !== 0) throw invalidField('operation', 'only 0 (Call) is proposed here: a DelegateCall runs foreign code with the Safe\'s own storage');
    const nonce = await this.d.safe.nonce(t.chain_id, t.safe_address as Address);
    if (input.expected_nonce !== undefined && BigInt(input.expected_nonce) !== nonce) throw conflict(`The Safe's nonce is ${nonce}, not ${input.expected_nonce}`);
    const data = input.data_hex ?? '0x';
    const hash = safeTxHash(t.chain_id, t.safe_address as Address, { to: input.to_address, value: input.value_wei, data, operation: 0, nonce });
    if (input.expected_safe_tx_hash !== undefined && input.expected_safe_tx_hash !== hash) {
      throw invalidField('safe_tx_hash', `is not this SafeTx's hash on the Safe's nonce ${nonce} (${hash})`);
    }
    const ttl = input.expires_in_seconds ?? DEFAULT_PROPOSAL_TTL_SECONDS;
    const expiresAt = new Date(Date.now() + ttl * 1000);
    const row = await em.transactional(async (tx) => {
      const id = randomUUID();
      // An agent's proposal also waits for a human in the approval queue (proposal-approval.ts).
      const approvalId = p.type === 'agent'
        ? await openProposalApproval(tx, {
          proposalId: id, agentId: p.id, treasury: t, expiresAt, to_address: input.to_address, value_wei: input.value_wei, safe_tx_hash: hash, nonce: Number(nonce),
          reason: input.reason,
        })
        : null;
      const r = await insertProposal(tx, {
        id, org_id: t.org_id, treasury_id: t.id, proposed_by: p.id, proposed_by_type: creatorType(p), chain: t.chain, chain_id: t.chain_id,
        safe_address: t.safe_address, to_address: input.to_address, value_wei: input.value_wei, data_hex: input.data_hex ?? null, operation: 0,
        safe_tx_hash: hash, nonce: Number(nonce), threshold: t.threshold, expires_at: expiresAt, approval_id: approvalId,
      });
      await emitEvent(tx, t.org_id, 'proposal.created', proposalEventData(r, { proposed_by: p.id, proposed_by_type: p.type }));
      return r;
    });
    await this.d.audit.record(ctx, 'treasury.proposal.create', {
      resourceType: 'treasury', resourceId: t.id, details: { proposal_id: row.id, to_address: row.to_address, value_wei: row.value_wei.toString(), safe_tx_hash: hash, nonce: row.nonce },
    });
    await this.d.client.startExpiry({ id: row.id, orgId: row.org_id });
    // A failed start is retried by the queue's re-drive (pending approvals without a workflow).
    if (row.approval_id) await this.d.waits.startWait({ id: row.approval_id, orgId: row.org_id });
    return (await withSignatures(em, [row]))[0]!;
  }

  async list(ctx: ActionContext, treasuryId: string, status?: ProposalStatus): Promise<ProposalView[]> {
    const em = this.d.db();
    const t = await loadTreasury(em, callerOf(ctx), treasuryId);
    return withSignatures(em, await listProposals(em, t.id, status));
  }

  async get(ctx: ActionContext, treasuryId: string, proposalId: string): Promise<ProposalView> {
    const em = this.d.db();
    const t = await loadTreasury(em, callerOf(ctx), treasuryId);
    const row = await findProposal(em, t.id, proposalId);
    if (!row) throw notFound('Proposal');
    return (await withSignatures(em, [row]))[0]!;
  }

  async sign(ctx: ActionContext, treasuryId: string, proposalId: string, input: SignInput): Promise<ProposalView> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const t = await loadTreasury(em, p, treasuryId);
    const me = signerEntryOf(await signersOf(em, [t.id]), p);
    if (!me) throw forbidden('Only a signer of the treasury can sign its proposals');
    if (input.signer_address !== undefined && input.signer_address !== me.signer_address) {
      throw invalidField('signer_address', `your signer address on this treasury is ${me.signer_address}`);
    }
    const current = await findProposal(em, t.id, proposalId);
    if (!current) throw notFound('Proposal');
    this.checkOpen(current);
    const signature = input.decision === 'approve' ? await this.approvalSignature(p, me, current, input.signature, input.confirm) : null;
    const row = await em.transactional(async (tx) => {
      const locked = await findProposal(tx, t.id, proposalId, true);
      this.checkOpen(locked!);
      await upsertSignature(tx, {
        id: randomUUID(), proposal_id: locked!.id, signer_id: p.id, signer_type: creatorType(p), signer_address: me.signer_address, signature, decision: input.decision,
      });
      const view = (await withSignatures(tx, [locked!]))[0]!;
      const signers = await signersOf(tx, [t.id]);
      const threshold = (await loadTreasury(tx, p, t.id)).threshold;
      let next: ProposalRow = locked!;
      const approvals = countingApprovals(view.signatures, signers).length;
      if (signers.length - countingRejections(view.signatures, signers) < threshold) {
        // Too many signers said no for the threshold ever to be met.
        next = (await moveProposal(tx, locked!.id, OPEN, 'rejected'))!;
        await closeProposalApproval(tx, next);
      } else if (locked!.status === 'pending' && approvals >= threshold) {
        next = (await moveProposal(tx, locked!.id, ['pending'], 'approved'))!;
      } else if (locked!.status === 'approved' && approvals < threshold) {
        // A signer changed its approval into a rejection: back to collecting.
        next = (await moveProposal(tx, locked!.id, ['approved'], 'pending'))!;
      }
      await emitEvent(tx, t.org_id, 'proposal.signed', proposalEventData(next, { signer_id: p.id, signer_type: creatorType(p), signer_address: me.signer_address, decision: input.decision }));
      return next;
    });
    await this.d.audit.record(ctx, 'treasury.proposal.sign', {
      resourceType: 'treasury', resourceId: t.id, details: { proposal_id: row.id, decision: input.decision, signer_address: me.signer_address, status: row.status },
    });
    return (await withSignatures(em, [row]))[0]!;
  }

  async cancel(ctx: ActionContext, treasuryId: string, proposalId: string): Promise<void> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const t = await loadTreasury(em, p, treasuryId);
    const current = await findProposal(em, t.id, proposalId);
    if (!current) throw notFound('Proposal');
    if (current.proposed_by !== p.id || current.proposed_by_type !== p.type) throw forbidden('Only the proposer can cancel a proposal');
    await em.transactional(async (tx) => {
      const row = await moveProposal(tx, current.id, OPEN, 'cancelled');
      if (!row) throw conflict(`Proposal is ${current.status}; only a pending or approved proposal can be cancelled`);
      await closeProposalApproval(tx, row);
      await emitEvent(tx, t.org_id, 'proposal.cancelled', proposalEventData(row, { cancelled_by: p.id }));
    });
    await this.d.audit.record(ctx, 'treasury.proposal.cancel', { resourceType: 'treasury', resourceId: t.id, details: { proposal_id: current.id } });
  }

  async requestExecution(ctx: ActionContext, treasuryId: string, proposalId: string): Promise<ProposalView> {
    const p = callerOf(ctx);
    if (p.type !== 'user') throw forbidden('Agents cannot execute proposals; a human does');
    const em = this.d.db();
    const t = await loadTreasury(em, p, treasuryId);
    const signers = await signersOf(em, [t.id]);
    await this.requireExecutor(em, p, t, signers);
    const current = await findProposal(em, t.id, proposalId);
    if (!current) throw notFound('Proposal');
    this.checkOpen(current);
    const view = (await withSignatures(em, [current]))[0]!;
    const approvals = countingApprovals(view.signatures, signers).length;
    if (approvals < t.threshold) throw conflict(`The proposal has ${approvals} approval(s) of current signers; the threshold is ${t.threshold}`);
    await requireApprovedProposal(em, current);
    const onChain = await this.d.safe.nonce(t.chain_id, t.safe_address as Address);
    if (onChain !== BigInt(current.nonce)) throw conflict(`The Safe's nonce is ${onChain}, but the proposal was built on nonce ${current.nonce}: another transaction went first; propose again`);
    await gasPayerOf(em, t, signers); // a 409 now rather than a failed execution later
    const row = await em.transactional(async (tx) => {
      const moved = await moveProposal(tx, current.id, OPEN, 'executing');
      if (!moved) throw conflict('The proposal is no longer pending or approved');
      return moved;
    });
    await this.d.audit.record(ctx, 'treasury.proposal.execute', { resourceType: 'treasury', resourceId: t.id, details: { proposal_id: row.id, safe_tx_hash: row.safe_tx_hash } });
    await this.d.client.startExecution({ id: row.id, orgId: row.org_id });
    return (await withSignatures(em, [row]))[0]!;
  }

  private checkOpen(p: ProposalRow): void {
    if (!OPEN.includes(p.status)) throw conflict(`Proposal is ${p.status}`);
    if (isPast(p.expires_at)) throw conflict('Proposal has expired');
  }

  /** The treasury's creator, an owner or admin, or a user signer. */
  private async requireExecutor(em: EntityManager, p: Principal, t: TreasuryRow, signers: SignerRow[]): Promise<void> {
    if (t.created_by === p.id || signerEntryOf(signers, p)) return;
    const role = await roleOf(em, p);
    if (role !== 'owner' && role !== 'admin') throw forbidden('Only the treasury\'s creator, a user signer, an owner or an admin can execute');
  }

  /**
   * The caller's signature over safe_tx_hash: checked when given; when not, made with the agent's
   * provisioned key, or with the user's EVM treasury wallet when that is their signer address
   * (after the confirmation a send asks).
   */
  private async approvalSignature(p: Principal, me: SignerRow, proposal: ProposalRow, given: string | undefined, confirm: string | undefined): Promise<Hex> {
    const hash = proposal.safe_tx_hash as Hex;
    if (given === undefined && p.type === 'user') {
      const owner = { orgId: p.orgId, userId: p.id };
      const wallet = await this.d.wallets.evmAddress(owner);
      if (wallet !== me.signer_address) {
        throw invalidField('signature', wallet === null
          ? 'is required from a user without an ethereum treasury wallet: the EIP-712 signature of the SafeTx (eth_signTypedData_v4) by your signer address'
          : `is required: your treasury wallet (${wallet}) is not your signer address on this treasury (${me.signer_address})`);
      }
      const sig = await this.d.wallets.sign(owner, Buffer.from(hash.slice(2), 'hex'), confirm);
      if (sig.address !== me.signer_address) throw new Problem(409, 'Your treasury wallet changed while signing; sign again');
      return packSignature(sig.r, sig.s, sig.recovery);
    }
    if (given === undefined) {
      const sig = await this.d.signer.signDigest(p.orgId, p.id, 'ethereum', Buffer.from(hash.slice(2), 'hex'));
      if (sig.address !== me.signer_address) {
        throw new Problem(409, `The agent's active key (${sig.address}) is not its signer address on this treasury (${me.signer_address})`);
      }
      return packSignature(sig.r, sig.s, sig.recovery);
    }
    const normalized = normalizeSignature(given);
    if (!normalized) throw invalidField('signature', 'must be a 65-byte hex signature (r‖s‖v, v 27/28, low s)');
    const from = await signerOf(hash, normalized);
    if (from !== me.signer_address) throw badRequest(`signature: it is not by your signer address ${me.signer_address} over safe_tx_hash ${hash}`, { errors: [{ field: 'signature', message: 'wrong signer or message' }] });
    return normalized;
  }
}
