// Treasury wallets (issue 31 §1; spec §4.7; reference /v1/treasury/wallets*): generate for named
// chains or every family the deployment supports, list (active, or with history), get, balance,
// export, rotate and deactivate. Keys are made and sealed as treasury-keys.ts says; each command
// owns its transaction and its audit record (public facts only, never a key).
import { confirmWalletUse } from './wallet-confirmation.ts';
import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import type { Kms } from '../../crypto/kms/kms.ts';
import type { StepUp } from '../../accounts/step-up.ts';
import type { Limiter } from '../../ratelimit/limiter.ts';
import type { LimitSpec } from '../../ratelimit/limiter.ts';
import { subjectOf } from '../../auth/principal.ts';
import { Problem, conflict, invalidField } from '../../errors.ts';
import { isUuid } from '../../ids.ts';
import type { ExportedKey, WalletChainFamily, WalletNetwork } from './chain-families.ts';
import type { WalletFamilies } from './families.ts';
import { walletOwner } from './wallet-access.ts';
import { ensureTreasuryKeysVault, keyPath, sealKey, unsealKey } from './treasury-keys.ts';
import { activeWallet, insertWallet, keyOf, listWallets, ownWallet, retireWallet, type Owner, type WalletRow } from './wallet-repository.ts';

/** Exports per user: a private key leaving the service is rare; a burst of them is an attack or a script gone wrong. */
export const TREASURY_EXPORT_PER_USER: LimitSpec = { name: 'treasury-export-user', ratePerSecond: 10 / 3600, burst: 10, whenStoreDown: 'closed' };

export type WalletDeps = {
  db: () => EntityManager; kms: Kms; audit: ActionAudit; stepUp: StepUp; families: WalletFamilies;
  /** Export limiter keyed by user (TREASURY_EXPORT_PER_USER). */
  exports: Limiter;
};

/** `address`: the wallet's on the network (a Bitcoin wallet's differs per network); amounts in the smallest unit, `decimals` of the native one. */
export type WalletBalance = {
  wallet: WalletRow; network: WalletNetwork; address: string; symbol: string; decimals: number; native: bigint; tokens: { contract: string; raw: bigint }[];
};
export type ExportedWallet = { wallet: WalletRow; privateKey: ExportedKey };

const noWallet = (chain: string) => new Problem(404, `You have no active ${chain} treasury wallet (POST /v1/treasury/wallets/generate)`);

export class WalletCommands {
  private readonly d: WalletDeps;

  constructor(deps: WalletDeps) {
    this.d = deps;
  }

  /**
   * A wallet for each family named (EVM names all mean the one `ethereum` wallet) or, without
   * `chains`, for every family supported. A family where the caller already has an active
   * wallet keeps it (reference: skipped); the answer lists the caller's active wallets of the
   * families asked, new and kept.
   */
  async generate(ctx: ActionContext, chains: string[] | undefined): Promise<WalletRow[]> {
    const em = this.d.db();
    const owner = await walletOwner(ctx, em);
    const families = chains === undefined ? this.d.families.all() : await this.familiesOf(em, chains);
    const out: WalletRow[] = [];
    for (const f of families) {
      const existing = await activeWallet(em, owner, f.family);
      if (existing) {
        out.push(existing);
        continue;
      }
      let made: WalletRow;
      try {
        made = await this.provision(em, owner, f, null);
      } catch (e) {
        if (!(e instanceof UniqueConstraintViolationException)) throw e;
        const winner = await activeWallet(em, owner, f.family); // a concurrent generate made it
        if (!winner) throw e;
        out.push(winner);
        continue;
      }
      await this.d.audit.record(ctx, 'treasury_wallet.generate', { resourceType: 'treasury_wallet', resourceId: made.id, details: facts(made) });
      out.push(made);
    }
    return out;
  }

  /** Active wallets, or (`history`) every wallet the caller ever had, rotated and deactivated ones too. */
  async list(ctx: ActionContext, history: boolean): Promise<WalletRow[]> {
    const em = this.d.db();
    return listWallets(em, await walletOwner(ctx, em), history);
  }

  async get(ctx: ActionContext, rawChain: string): Promise<WalletRow> {
    const { wallet } = await this.activeOf(ctx, rawChain);
    return wallet;
  }

  /** The native balance on the network named (and ERC-20 balances of `tokens`, EVM only). */
  async balance(ctx: ActionContext, rawChain: string, tokens: string[]): Promise<WalletBalance> {
    const { em, family, wallet } = await this.activeOf(ctx, rawChain);
    const network = await family.network(em, rawChain);
    const address = family.addressOn(network, wallet);
    const b = await family.balance(network, address, tokens);
    return { wallet, network, address, symbol: network.nativeCurrency, decimals: family.decimals, native: b.native, tokens: b.tokens };
  }

  /**
   * The private key of the caller's active wallet, or with `walletId` of one of their retired
   * wallets (funds that still reach an old address can be moved elsewhere). X-Auth-Confirm: the
   * password (wrong guesses throttled) or a `rat_` token for `treasury_wallet.export`; at most
   * TREASURY_EXPORT_PER_USER; the audit record is durable before the key is returned.
   */
  async export(ctx: ActionContext, rawChain: string, confirm: string | undefined, walletId?: string): Promise<ExportedWallet> {
    const em = this.d.db();
    const owner = await walletOwner(ctx, em);
    const family = await this.d.families.resolve(em, rawChain);
    const wait = await this.d.exports.take(owner.userId);
    if (wait > 0) throw new Problem(429, 'Too many treasury key exports; retry later', { headers: { 'Retry-After': String(Math.ceil(wait)) } });
    await confirmWalletUse(this.d.stepUp, em, owner.userId, confirm, {
      purpose: 'treasury_wallet.export', doing: 'Exporting a treasury key',
      wrong: 'Confirm in the X-Auth-Confirm header: your account password, or a rat_ token for treasury_wallet.export',
    });
    let wallet: WalletRow | null;
    if (walletId !== undefined) {
      wallet = isUuid(walletId) ? await ownWallet(em, owner, walletId) : null;
      if (!wallet || wallet.chain !== family.family) throw new Problem(404, `You have no ${family.family} treasury wallet with id ${walletId}`);
    } else {
      wallet = await activeWallet(em, owner, family.family);
      if (!wallet) throw noWallet(family.family);
    }
    const key = await unsealKey(em, this.d.kms, owner.orgId, keyOf(wallet));
    let privateKey: ExportedKey;
    try {
      // Never hand out a key that is not this wallet's.
      if (family.keyFacts(key).address !== wallet.address) throw new Error('the sealed treasury key does not match its wallet');
      privateKey = family.exportKey(key);
    } finally {
      key.fill(0);
    }
    await this.d.audit.record(ctx, 'treasury_wallet.export', { resourceType: 'treasury_wallet', resourceId: wallet.id, details: facts(wallet) });
    return { wallet, privateKey };
  }

  /**
   * A new key pair (new address) replaces the active wallet in one transaction. The old wallet
   * is kept, retired (is_active false, retired_by rotation): listed with ?include_inactive=true,
   * its key still exportable, but it never sends again. Funds at the old address stay there.
   */
  async rotate(ctx: ActionContext, rawChain: string): Promise<WalletRow> {
    const { em, owner, family, wallet } = await this.activeOf(ctx, rawChain);
    let made: WalletRow;
    try {
      made = await this.provision(em, owner, family, wallet);
    } catch (e) {
      if (e instanceof UniqueConstraintViolationException) throw conflict('The wallet changed while rotating it; read it again');
      throw e;
    }
    await this.d.audit.record(ctx, 'treasury_wallet.rotate', {
      resourceType: 'treasury_wallet', resourceId: made.id, details: { ...facts(made), previous_wallet_id: wallet.id, previous_address: wallet.address },
    });
    return made;
  }

  /** DELETE: the wallet never sends again; its record and sealed key stay (history, export). */
  async deactivate(ctx: ActionContext, rawChain: string): Promise<void> {
    const { em, family, wallet } = await this.activeOf(ctx, rawChain);
    if (!(await retireWallet(em, wallet.id, 'deactivation'))) throw noWallet(family.family);
    await this.d.audit.record(ctx, 'treasury_wallet.deactivate', { resourceType: 'treasury_wallet', resourceId: wallet.id, details: facts(wallet) });
  }

  private async activeOf(ctx: ActionContext, rawChain: string) {
    const em = this.d.db();
    const owner = await walletOwner(ctx, em);
    const family = await this.d.families.resolve(em, rawChain);
    const wallet = await activeWallet(em, owner, family.family);
    if (!wallet) throw noWallet(family.family);
    return { em, owner, family, wallet };
  }

  private async familiesOf(em: EntityManager, chains: string[]): Promise<WalletChainFamily[]> {
    const out = new Map<string, WalletChainFamily>();
    for (const [i, c] of chains.entries()) {
      const f = await this.d.families.resolve(em, c, `chains.${i}`);
      out.set(f.family, f);
    }
    if (out.size === 0) throw invalidField('chains', 'name at least one chain, or leave chains out for every supported chain');
    return [...out.values()];
  }

  /** Makes, seals and records a key pair; with `previous`, retires that wallet in the same transaction. */
  private async provision(em: EntityManager, owner: Owner, family: WalletChainFamily, previous: WalletRow | null): Promise<WalletRow> {
    const vault = await ensureTreasuryKeysVault(em, this.d.kms, owner.orgId, owner.userId);
    const id = randomUUID();
    const pair = family.generateKey();
    try {
      return await em.transactional(async (tx) => {
        if (previous) {
          const locked = await activeWallet(tx, owner, family.family, true);
          if (locked?.id !== previous.id || !(await retireWallet(tx, previous.id, 'rotation'))) throw conflict('The wallet changed while rotating it; read it again');
        }
        const at = await sealKey(tx, this.d.kms, vault, keyPath(owner.userId, family.family, id), pair.privateKey, subjectOf({ type: 'user', id: owner.userId }));
        return insertWallet(tx, {
          id, org_id: owner.orgId, user_id: owner.userId, chain: family.family, curve: family.curve, public_key: pair.publicKey, address: pair.address,
          key_vault_id: at.vaultId, key_path: at.path, key_item_version: at.version,
        });
      });
    } finally {
      pair.privateKey.fill(0);
    }
  }
}

/** What the audit log keeps of a wallet: public facts only. */
export function facts(w: WalletRow): Record<string, unknown> {
  return { chain: w.chain, address: w.address, curve: w.curve };
}
