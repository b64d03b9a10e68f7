// The Bitcoin family of treasury wallets: one secp256k1 key per wallet, made and sealed here like
// the EVM family's, whose P2WPKH (bech32) address differs per network: the record keeps mainnet's
// (bc1q…), and each network's (tb1q…, bcrt1q…) is derived from the public key (addressOn; the
// wallet response lists them all). The public key is recorded as agents' signing keys record it:
// 0x-hex of the 65-byte uncompressed point. Export gives the key as WIF (compressed, mainnet),
// what Bitcoin wallets import (Electrum: `p2wpkh:<WIF>`; Bitcoin Core: `wpkh(<WIF>)`), and its
// 0x-hex. Balances and sends go through the Intents API's Bitcoin family (its node calls, coin
// selection, fee rate: the node's estimate within its floor and cap, RBF, change back to the
// wallet's address on that network, every input signed with the unsealed key, low-S). Bitcoin
// has no account nonce: the row's `nonce` is the service's per-sender sequence, and a send leaves
// alone the coins the wallet's unsettled transfers spend (read from their signed bytes).
import type { EntityManager } from '@mikro-orm/postgresql';
import { secp256k1 } from '@noble/curves/secp256k1';
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { toHex } from 'viem';
import * as bitcoin from 'bitcoinjs-lib';
import { bitcoinNetworkOf, p2wpkhAddress } from '../../intents/families/bitcoin/bitcoin-network.ts';
import { invalidField } from '../../errors.ts';
import type { ChainFamilies } from '../../intents/families/family-registry.ts';
import { withChainProblems } from '../../intents/transactions/chain-problems.ts';
import type {
  BroadcastVerdict, ExportedKey, KeyPair, OpenTransfer, SignedTransfer, TransferReceipt, TransferRequest, WalletChainFamily, WalletNetwork,
} from './chain-families.ts';
import { broadcastThrough, familyWalletNetwork, noTokens, nodeOf, receiptOf, refuseEvmFields } from './family-wallet-networks.ts';

const ECPair = ECPairFactory(ecc);
const compressed = (uncompressedHex: string) => secp256k1.ProjectivePoint.fromHex(uncompressedHex.slice(2)).toRawBytes(true);
const MAINNET = bitcoinNetworkOf('mainnet');

export class BitcoinWalletFamily implements WalletChainFamily {
  readonly family = 'bitcoin' as const;
  readonly curve = 'secp256k1' as const;
  /** Against a misplaced decimal point: 1,000 BTC per transfer. */
  readonly sanityCap = 1_000n * 100_000_000n;
  readonly sanityCapLabel = '1,000 BTC';
  readonly decimals = 8;
  readonly sequence = 'service' as const;
  private readonly chains: ChainFamilies;

  constructor(chains: ChainFamilies) {
    this.chains = chains;
  }

  generateKey(): KeyPair {
    const privateKey = secp256k1.utils.randomPrivateKey();
    return { privateKey, ...this.keyFacts(privateKey) };
  }

  keyFacts(privateKey: Uint8Array): { publicKey: string; address: string } {
    const publicKey = toHex(secp256k1.getPublicKey(privateKey, false));
    return { publicKey, address: p2wpkhAddress(compressed(publicKey), MAINNET) };
  }

  exportKey(privateKey: Uint8Array): ExportedKey {
    const wif = ECPair.fromPrivateKey(privateKey, { compressed: true, network: MAINNET }).toWIF();
    return { hex: toHex(privateKey), importable: wif, format: 'wif' };
  }

  network(em: EntityManager, raw: string): Promise<WalletNetwork> {
    return familyWalletNetwork(this.chains, em, raw, 'bitcoin');
  }

  addressOn(net: WalletNetwork, wallet: { public_key: string }): string {
    return p2wpkhAddress(compressed(wallet.public_key), bitcoinNetworkOf(net.node?.network ?? 'mainnet'));
  }

  /** A standard output of the network's own kind (a mainnet address on regtest is refused); as given (base58 P2PKH is case-sensitive). */
  destination(net: WalletNetwork, raw: string): string {
    const to = raw.trim();
    if (!net.node || !this.chains.of('bitcoin').isAddress(to, net.node)) {
      throw invalidField('to', `must be a Bitcoin address on ${net.name} (P2WPKH, P2TR, P2WSH, P2SH or P2PKH)`);
    }
    return to;
  }

  async balance(net: WalletNetwork, address: string, tokens: string[]) {
    noTokens('bitcoin', tokens);
    const node = nodeOf(net);
    const native = await withChainProblems(() => this.chains.of('bitcoin').balance(node, address));
    return { native, tokens: [] };
  }

  /** Coins and fee rate are read when signing (under the wallet's lock, knowing the open transfers); funds short: 422 then. */
  async prepareTransfer(net: WalletNetwork, from: string, req: TransferRequest) {
    refuseEvmFields('bitcoin', req);
    const node = nodeOf(net);
    const family = this.chains.of('bitcoin');
    const sign = async (privateKey: Uint8Array, nonce: number, open: OpenTransfer[]): Promise<SignedTransfer> => {
      const publicKey = secp256k1.getPublicKey(privateKey, true);
      const reservedOutpoints = new Set(open.flatMap((t) => inputsOf(t.signedTx)));
      const signed = await withChainProblems(() => family.signTransfer(node, { publicKey, address: from }, { to: req.to, amount: req.value }, { reservedOutpoints },
        async (digest) => secp256k1.sign(digest, privateKey, { lowS: true }).toCompactRawBytes()));
      return { signedTx: signed.raw, txHash: signed.txHash, nonce };
    };
    return { sign };
  }

  async nextNonce(): Promise<number> {
    return 0;
  }

  broadcast(net: WalletNetwork, t: { signedTx: string }): Promise<BroadcastVerdict> {
    return broadcastThrough(this.chains.of('bitcoin'), nodeOf(net), t.signedTx);
  }

  async receipt(net: WalletNetwork, t: { signedTx: string; txHash: string }): Promise<TransferReceipt | null> {
    return receiptOf(await this.chains.of('bitcoin').status(nodeOf(net), t.txHash, { inputs: inputsOf(t.signedTx).join(',') }));
  }
}

/** The outpoints (`txid:vout`) a signed transaction spends. */
function inputsOf(hex: string): string[] {
  return bitcoin.Transaction.fromHex(hex).ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`);
}
