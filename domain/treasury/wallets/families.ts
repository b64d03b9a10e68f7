// Which chain family a chain name in a request asks for, and the families this deployment
// supports. Every EVM name or chain_id (ethereum, base, 8453 …) is the one `ethereum` wallet; every
// Bitcoin network (bitcoin, btc, bitcoin-regtest …) the one `bitcoin` wallet, every Solana network
// the one `solana` wallet, every XRP, Cardano or Tron network the one wallet of its family,
// as for agents' signing keys (domain/intents/signing-keys/signing-chains.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChainRpc } from '../../chains/chain-rpc.ts';
import { resolveSigningChain } from '../../intents/signing-keys/signing-chains.ts';
import { invalidField } from '../../errors.ts';
import type { WalletChainFamily, WalletFamilyName } from './chain-families.ts';
import type { ChainFamilies } from '../../intents/families/family-registry.ts';
import { EvmWalletFamily } from './evm-family.ts';
import { BitcoinWalletFamily } from './bitcoin-family.ts';
import { SolanaWalletFamily } from './solana-family.ts';
import { TronWalletFamily } from './tron-family.ts';
import { XrpWalletFamily } from './xrp-family.ts';
import { CardanoWalletFamily } from './cardano-family.ts';

export class WalletFamilies {
  private readonly byName: ReadonlyMap<WalletFamilyName, WalletChainFamily>;

  /** `rpc`: the EVM chains' client; `chains`: the Intents API's Bitcoin and Solana families (their nodes). */
  constructor(rpc: ChainRpc, chains: ChainFamilies) {
    // A family joins here once the Intents API has its chain library.
    const families: WalletChainFamily[] = [new EvmWalletFamily(rpc), new BitcoinWalletFamily(chains), new SolanaWalletFamily(chains), new XrpWalletFamily(chains), new CardanoWalletFamily(chains), new TronWalletFamily(chains)];
    this.byName = new Map(families.map((f) => [f.family, f]));
  }

  /** Every family the deployment supports (generate without `chains`). */
  all(): WalletChainFamily[] {
    return [...this.byName.values()];
  }

  /** The family `raw` names, or a 400 naming `field`. */
  async resolve(em: EntityManager, raw: string, field = 'chain'): Promise<WalletChainFamily> {
    const name = await resolveSigningChain(em, raw, field);
    const f = this.byName.get(name);
    if (!f) throw invalidField(field, `${name} treasury wallets are not available yet: ${this.all().map((x) => x.family).join(', ')} for now`);
    return f;
  }

  /** The family of a stored row. */
  of(name: WalletFamilyName): WalletChainFamily {
    const f = this.byName.get(name);
    if (!f) throw new Error(`no wallet family ${name}`);
    return f;
  }
}
