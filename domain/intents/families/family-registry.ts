// The chain families the Intents API signs for beyond EVM, and the network a request names: its
// seeded chains row (enabled), its node (the deployment's CHAIN_RPC_URLS pin, else the stored
// rpc_url) and its confirmations. A family joins here with one line.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Problem, invalidField } from '../../errors.ts';
import { findChain, type ChainRow } from '../../chains/chain-repository.ts';
import { effectiveRpcUrl } from '../../chains/effective-rpc.ts';
import type { ChainFamily, FamilyNetwork } from './chain-family.ts';
import { familyNetworkOf, type SignedFamily } from './family-chains.ts';
import { SolanaFamily } from './solana/solana-family.ts';
import { BitcoinFamily } from './bitcoin/bitcoin-family.ts';
import { TronFamily } from './tron/tron-family.ts';
import { XrpFamily } from './xrp/xrp-family.ts';
import { CardanoFamily } from './cardano/cardano-family.ts';

export type ResolvedNetwork = { family: ChainFamily; name: SignedFamily; net: FamilyNetwork; row: Pick<ChainRow, 'name'> };

/** What resolving needs of a chains row (a fresh read, or the signing hot path's cached one). */
type NetworkRow = { name: string; chain_id: number | string; is_enabled: boolean; network?: string | null; rpc_url?: string | null; confirmations?: number };

export class ChainFamilies {
  private readonly byName: ReadonlyMap<SignedFamily, ChainFamily>;
  private readonly rpcOverrides: ReadonlyMap<string, string>;

  constructor(d: { rpcOverrides: ReadonlyMap<string, string>; families?: ChainFamily[] }) {
    const families = d.families ?? [new BitcoinFamily(), new SolanaFamily(), new XrpFamily(), new CardanoFamily(), new TronFamily()];
    this.byName = new Map(families.map((f) => [f.family as SignedFamily, f]));
    this.rpcOverrides = d.rpcOverrides;
  }

  /** The family of a stored row (its `family` column). */
  of(name: string): ChainFamily {
    const f = this.byName.get(name as SignedFamily);
    if (!f) throw new Error(`no chain family ${name}`);
    return f;
  }

  /** Whether `raw` names a network of a family here (else the EVM path takes it). */
  handles(raw: string | number): boolean {
    return familyNetworkOf(raw) !== null;
  }

  /** The seeded network `raw` names (no database read), or a 400. */
  seeded(raw: string | number): { name: string; chainId: number; family: SignedFamily } {
    const seeded = familyNetworkOf(raw);
    if (!seeded) throw invalidField('chain', 'must be a Bitcoin, Solana, XRP Ledger, Cardano or Tron network (see GET /v1/chains)');
    return seeded;
  }

  /** The network `raw` names (400 when unknown or disabled); its rpcUrl is '' when it has no node (requireNode). */
  async resolve(em: EntityManager, raw: string | number): Promise<ResolvedNetwork> {
    const seeded = this.seeded(raw);
    return this.fromRow(seeded, await findChain(em, { by: 'name', name: seeded.name }));
  }

  /** resolve() given the seeded network's chains row as already read (null: none). */
  fromRow(seeded: { name: string; family: SignedFamily }, row: NetworkRow | null | undefined): ResolvedNetwork {
    const family = this.byName.get(seeded.family);
    if (!family) throw invalidField('chain', `${seeded.family} transactions are not available on this deployment`);
    if (!row?.is_enabled || !row.network) throw invalidField('chain', `${seeded.name} is disabled on this deployment`);
    const { url } = effectiveRpcUrl({ name: row.name, rpc_url: row.rpc_url ?? null }, this.rpcOverrides);
    return {
      family, name: seeded.family, row: { name: row.name },
      net: { name: row.name, chainId: Number(row.chain_id), network: row.network, rpcUrl: url ?? '', confirmations: row.confirmations ?? 1 },
    };
  }

  /** 503 when the network has no node (checked once the request itself is known to be good). */
  requireNode(n: ResolvedNetwork): void {
    if (n.net.rpcUrl !== '') return;
    throw new Problem(503, `Chain ${n.row.name} has no node configured: the operator sets one with CHAIN_RPC_URLS or PUT /v1/admin/chains/${n.row.name}`, {
      type: 'chain_unavailable', title: 'Chain Unavailable',
    });
  }
}
