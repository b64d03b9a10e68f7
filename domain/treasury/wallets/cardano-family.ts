// The Cardano family of treasury wallets: one Ed25519 key per wallet (the 32-byte seed is what is
// sealed), whose enterprise address differs per network: the record keeps mainnet's (addr1v…),
// each network's (addr_test1v… on preprod and preview) is derived from the public key
// (addressOn). The public key is recorded as 0x-hex of its 32 bytes, as agents' Cardano keys are.
// Export gives the key as CIP-5 bech32 (`ed25519_sk1…`, what cardano-signer and
// cardano-addresses read) and its 0x-hex. Balances and ADA sends go through the Intents API's
// Cardano family (UTxO selection, minimum UTxO, fee from the protocol parameters, TTL, change
// back to the wallet's address on that network, the witness signed with the unsealed seed).
// Cardano has no account nonce: the row's `nonce` is the service's per-sender sequence, and a
// send leaves alone the UTxOs the wallet's unsettled transfers spend (read from their CBOR).
import type { EntityManager } from '@mikro-orm/postgresql';
import * as C from '@emurgo/cardano-serialization-lib-nodejs';
import { ed25519 } from '@noble/curves/ed25519';
import { toHex } from 'viem';
import { enterpriseAddress } from '../../intents/families/cardano/cardano-address.ts';
import { invalidField } from '../../errors.ts';
import type { ChainFamilies } from '../../intents/families/family-registry.ts';
import { withChainProblems } from '../../intents/transactions/chain-problems.ts';
import type {
  BroadcastVerdict, ExportedKey, KeyPair, OpenTransfer, SignedTransfer, TransferReceipt, TransferRequest, WalletChainFamily, WalletNetwork,
} from './chain-families.ts';
import { broadcastThrough, familyWalletNetwork, noTokens, nodeOf, receiptOf, refuseEvmFields } from './family-wallet-networks.ts';

export class CardanoWalletFamily implements WalletChainFamily {
  readonly family = 'cardano' as const;
  readonly curve = 'ed25519' as const;
  /** Against a misplaced decimal point: 10,000,000 ADA per transfer. */
  readonly sanityCap = 10_000_000n * 1_000_000n;
  readonly sanityCapLabel = '10,000,000 ADA';
  readonly decimals = 6;
  readonly sequence = 'service' as const;
  private readonly chains: ChainFamilies;

  constructor(chains: ChainFamilies) {
    this.chains = chains;
  }

  generateKey(): KeyPair {
    const privateKey = ed25519.utils.randomPrivateKey();
    return { privateKey, ...this.keyFacts(privateKey) };
  }

  keyFacts(privateKey: Uint8Array): { publicKey: string; address: string } {
    const pub = ed25519.getPublicKey(privateKey);
    return { publicKey: toHex(pub), address: enterpriseAddress(pub, 'mainnet') };
  }

  exportKey(privateKey: Uint8Array): ExportedKey {
    return { hex: toHex(privateKey), importable: C.PrivateKey.from_normal_bytes(privateKey).to_bech32(), format: 'bech32' };
  }

  network(em: EntityManager, raw: string): Promise<WalletNetwork> {
    return familyWalletNetwork(this.chains, em, raw, 'cardano');
  }

  addressOn(net: WalletNetwork, wallet: { public_key: string }): string {
    return enterpriseAddress(Buffer.from(wallet.public_key.slice(2), 'hex'), net.node?.network ?? 'mainnet');
  }

  /** A Shelley payment address of the network (a mainnet address on preprod is refused), as given. */
  destination(net: WalletNetwork, raw: string): string {
    const to = raw.trim();
    if (!net.node || !this.chains.of('cardano').isAddress(to, net.node)) {
      throw invalidField('to', `must be a Cardano payment address on ${net.name} (bech32 ${net.node?.network === 'mainnet' ? 'addr1' : 'addr_test1'}…)`);
    }
    return to;
  }

  async balance(net: WalletNetwork, address: string, tokens: string[]) {
    noTokens('cardano', tokens);
    const node = nodeOf(net);
    const native = await withChainProblems(() => this.chains.of('cardano').balance(node, address));
    return { native, tokens: [] };
  }

  /** UTxOs, parameters and the tip are read when signing (under the wallet's lock, knowing the open transfers); funds short: 422 then. */
  async prepareTransfer(net: WalletNetwork, from: string, req: TransferRequest) {
    refuseEvmFields('cardano', req);
    const node = nodeOf(net);
    const family = this.chains.of('cardano');
    const sign = async (privateKey: Uint8Array, nonce: number, open: OpenTransfer[]): Promise<SignedTransfer> => {
      const publicKey = ed25519.getPublicKey(privateKey);
      const reservedOutpoints = new Set(open.flatMap((t) => inputsOf(t.signedTx)));
      const signed = await withChainProblems(() => family.signTransfer(node, { publicKey, address: from }, { to: req.to, amount: req.value }, { reservedOutpoints },
        async (hash) => ed25519.sign(hash, privateKey)));
      return { signedTx: signed.raw, txHash: signed.txHash, nonce };
    };
    return { sign };
  }

  async nextNonce(): Promise<number> {
    return 0;
  }

  broadcast(net: WalletNetwork, t: { signedTx: string }): Promise<BroadcastVerdict> {
    return broadcastThrough(this.chains.of('cardano'), nodeOf(net), t.signedTx);
  }

  /** Settled once on chain, or failed once its TTL (read from the CBOR) passed without it. */
  async receipt(net: WalletNetwork, t: { signedTx: string; txHash: string }): Promise<TransferReceipt | null> {
    const ttl = C.FixedTransaction.from_hex(t.signedTx).body().ttl_bignum();
    return receiptOf(await this.chains.of('cardano').status(nodeOf(net), t.txHash, ttl ? { ttl_slot: Number(ttl.to_str()) } : {}));
  }
}

/** The UTxOs (`txhash#index`) a signed transaction spends. */
function inputsOf(cborHex: string): string[] {
  const inputs = C.FixedTransaction.from_hex(cborHex).body().inputs();
  return Array.from({ length: inputs.len() }, (_, i) => `${inputs.get(i).transaction_id().to_hex()}#${inputs.get(i).index()}`);
}
