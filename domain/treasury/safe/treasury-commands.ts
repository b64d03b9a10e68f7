// Multisig treasuries on a Safe (spec §4.7; reference facts §22): create, list, get, update,
// delete, add and remove signers. A treasury names a deployed Safe on one of the service's EVM
// chains, a threshold and its signers (users or agents of the organization, each with the address
// that signs for it). The threshold never exceeds the number of signers. Agents may read, never
// manage (treasury-access.ts). Each command owns its transaction and audit record.
import { randomUUID } from 'node:crypto';
import { getAddress, type Address } from 'viem';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import { callerOf } from '../../auth/principal.ts';
import { badRequest, conflict, invalidField, notFound } from '../../errors.ts';
import { resolveEvmChain } from '../../intents/intents-access.ts';
import {
  countSigners, deleteSigner, deleteTreasury, insertSigner, insertTreasury, listTreasuries, principalExists, updateTreasury,
  type NewSigner,
} from './treasury-repository.ts';
import { loadTreasury, requireHuman, requireTreasuryManager, withSigners, type TreasuryWithSigners } from './treasury-access.ts';

export type CreateTreasuryInput = {
  name: string; safe_address: Address; chain?: string; chain_id?: number; threshold: number; signers: NewSigner[];
  gas_payer_agent_id?: string | null;
};
export type UpdateTreasuryInput = { name?: string; threshold?: number; gas_payer_agent_id?: string | null };

export type TreasuryDeps = { db: () => EntityManager; audit: ActionAudit };

export class TreasuryCommands {
  private readonly d: TreasuryDeps;

  constructor(deps: TreasuryDeps) {
    this.d = deps;
  }

  async create(ctx: ActionContext, input: CreateTreasuryInput): Promise<TreasuryWithSigners> {
    const p = callerOf(ctx);
    requireHuman(p, 'create treasuries');
    const em = this.d.db();
    // Reference default: Base (8453) when neither chain nor chain_id is given.
    const chain = await resolveEvmChain(em, input.chain ?? input.chain_id ?? 'base');
    if (input.chain !== undefined && input.chain_id !== undefined && chain.chainId !== input.chain_id) {
      throw invalidField('chain_id', `is ${input.chain_id}, but chain ${chain.name} has chain_id ${chain.chainId}`);
    }
    if (input.threshold > input.signers.length) {
      throw invalidField('threshold', `is ${input.threshold}, more than the ${input.signers.length} signer(s) given`);
    }
    const addresses = new Set<string>();
    for (const s of input.signers) {
      if (addresses.has(s.signerAddress)) throw invalidField('signers', `${s.signerAddress} is listed twice`);
      addresses.add(s.signerAddress);
      await this.checkPrincipal(em, p.orgId, s);
    }
    if (input.gas_payer_agent_id) await this.checkPrincipal(em, p.orgId, { signerType: 'agent', signerId: input.gas_payer_agent_id, signerAddress: '' }, 'gas_payer_agent_id');
    const id = randomUUID();
    await em.transactional(async (tx) => {
      const row = await insertTreasury(tx, {
        id, orgId: p.orgId, name: input.name, safeAddress: getAddress(input.safe_address), chain: chain.name, chainId: chain.chainId,
        threshold: input.threshold, createdBy: p.id, gasPayerAgentId: input.gas_payer_agent_id ?? null,
      });
      if (!row) throw conflict(`A treasury for Safe ${input.safe_address} on ${chain.name} already exists in this organization`);
      for (const s of input.signers) await insertSigner(tx, id, { ...s, id: randomUUID() });
    });
    await this.d.audit.record(ctx, 'treasury.create', {
      resourceType: 'treasury', resourceId: id,
      details: { safe_address: getAddress(input.safe_address), chain: chain.name, threshold: input.threshold, signers: input.signers.length },
    });
    return this.get(ctx, id);
  }

  async list(ctx: ActionContext): Promise<TreasuryWithSigners[]> {
    const p = callerOf(ctx);
    const em = this.d.db();
    return withSigners(em, await listTreasuries(em, p.orgId));
  }

  async get(ctx: ActionContext, id: string): Promise<TreasuryWithSigners> {
    const em = this.d.db();
    return (await withSigners(em, [await loadTreasury(em, callerOf(ctx), id)]))[0]!;
  }

  async update(ctx: ActionContext, id: string, input: UpdateTreasuryInput): Promise<TreasuryWithSigners> {
    const p = callerOf(ctx);
    requireHuman(p, 'update treasuries');
    const em = this.d.db();
    if (input.gas_payer_agent_id) await this.checkPrincipal(em, p.orgId, { signerType: 'agent', signerId: input.gas_payer_agent_id, signerAddress: '' }, 'gas_payer_agent_id');
    await em.transactional(async (tx) => {
      const t = await loadTreasury(tx, p, id, true);
      await requireTreasuryManager(tx, p, t, 'update a treasury');
      if (input.threshold !== undefined) {
        const n = await countSigners(tx, t.id);
        if (input.threshold > n) throw invalidField('threshold', `is ${input.threshold}, more than the treasury's ${n} signer(s)`);
      }
      await updateTreasury(tx, t.id, { name: input.name, threshold: input.threshold, gasPayerAgentId: input.gas_payer_agent_id });
    });
    await this.d.audit.record(ctx, 'treasury.update', { resourceType: 'treasury', resourceId: id, details: { ...input } });
    return this.get(ctx, id);
  }

  async remove(ctx: ActionContext, id: string): Promise<void> {
    const p = callerOf(ctx);
    requireHuman(p, 'delete treasuries');
    await this.d.db().transactional(async (tx) => {
      const t = await loadTreasury(tx, p, id, true);
      await requireTreasuryManager(tx, p, t, 'delete a treasury');
      await deleteTreasury(tx, t.id);
    });
    await this.d.audit.record(ctx, 'treasury.delete', { resourceType: 'treasury', resourceId: id });
  }

  async addSigner(ctx: ActionContext, id: string, s: NewSigner): Promise<TreasuryWithSigners['signers'][number]> {
    const p = callerOf(ctx);
    requireHuman(p, 'add treasury signers');
    const em = this.d.db();
    const signer = await em.transactional(async (tx) => {
      const t = await loadTreasury(tx, p, id, true);
      await requireTreasuryManager(tx, p, t, 'add a signer');
      await this.checkPrincipal(tx, p.orgId, s);
      const row = await insertSigner(tx, t.id, { ...s, id: randomUUID() });
      if (!row) throw conflict(`${s.signerAddress} is already a signer of this treasury`);
      return row;
    });
    await this.d.audit.record(ctx, 'treasury.signer.add', {
      resourceType: 'treasury', resourceId: id, details: { signer_id: signer.id, signer_type: s.signerType, signer_address: s.signerAddress },
    });
    return signer;
  }

  /** Removes a signer; its signatures on open proposals stop counting at once (they count current signers only). */
  async removeSigner(ctx: ActionContext, id: string, signerId: string): Promise<void> {
    const p = callerOf(ctx);
    requireHuman(p, 'remove treasury signers');
    await this.d.db().transactional(async (tx) => {
      const t = await loadTreasury(tx, p, id, true);
      await requireTreasuryManager(tx, p, t, 'remove a signer');
      if (!await deleteSigner(tx, t.id, signerId)) throw notFound('Signer');
      const left = await countSigners(tx, t.id);
      if (left < t.threshold) throw conflict(`Removing this signer would leave ${left} signer(s), fewer than the threshold ${t.threshold}: lower the threshold first`);
    });
    await this.d.audit.record(ctx, 'treasury.signer.remove', { resourceType: 'treasury', resourceId: id, details: { signer_id: signerId } });
  }

  private async checkPrincipal(em: EntityManager, orgId: string, s: NewSigner, field = 'signer_id'): Promise<void> {
    if (!await principalExists(em, orgId, s.signerType, s.signerId)) {
      throw badRequest(`${field}: no ${s.signerType} ${s.signerId} in this organization`, { errors: [{ field, message: `no such ${s.signerType}` }] });
    }
  }
}
