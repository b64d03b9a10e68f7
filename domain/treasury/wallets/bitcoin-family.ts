// The Bitcoin family of treasury wallets: one secp256k1 key per wallet, made and sealed here like
// the EVM family's, whose P2WPKH (bech32) address differs per network: the record keeps mainnet's
// (bc1q…), and each network's (tb1q…, bcrt1q…) is derived from the public key (addressOn; the
// wallet response lists them all). The public key is recorded as agents' signing keys record it:
// 0x-hex of the 65-byte uncompressed point. Export gives the key as WIF (compressed, mainnet),
// what Bitcoin wallets import (Electrum: `p2wpkh:<WIF>`; Bitcoin Core: `wpkh(<WIF>)`), and its
// 0x-hex. Balances come from the Intents API's Bitcoin family (its node calls, confirmed coins).
// Sends come later: the send path is nonce-shaped and a Bitcoin send needs coin reservations.
import type { EntityManager } from '@mikro-orm/postgresql';
import { secp256k1 } from '@noble/curves/secp256k1';
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { toHex } from 'viem';
import { bitcoinNetworkOf, p2wpkhAddress } from '../../intents/families/bitcoin/bitcoin-network.ts';
import type { ChainFamilies } from '../../intents/families/family-registry.ts';
import { withChainProblems } from '../../intents/transactions/chain-problems.ts';
import type { BroadcastVerdict, ExportedKey, KeyPair, SignedTransfer, TransferReceipt, WalletChainFamily, WalletNetwork } from './chain-families.ts';
import { familyWalletNetwork, noTokens, nodeOf, sendsLater } from './family-wallet-networks.ts';

const ECPair = ECPairFactory(ecc);
const compressed = (uncompressedHex: string) => secp256k1.ProjectivePoint.fromHex(uncompressedHex.slice(2)).toRawBytes(true);
const MAINNET = bitcoinNetworkOf('mainnet');

export class BitcoinWalletFamily implements WalletChainFamily {
  readonly family = 'bitcoin' as const;
  readonly curve = 'secp256k1' as const;
  /** Against a misplaced decimal point, should sends come: 1,000 BTC per transfer. */
  readonly sanityCap = 1_000n * 100_000_000n;
  readonly sanityCapLabel = '1,000 BTC';
  readonly decimals = 8;
  readonly sends = false;
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

  destination(): string {
    throw sendsLater('bitcoin');
  }

  async balance(net: WalletNetwork, address: string, tokens: string[]) {
    noTokens('bitcoin', tokens);
    const node = nodeOf(net);
    const native = await withChainProblems(() => this.chains.of('bitcoin').balance(node, address));
    return { native, tokens: [] };
  }

  prepareTransfer(): Promise<{ sign: (privateKey: Uint8Array, nonce: number) => SignedTransfer }> {
    throw sendsLater('bitcoin');
  }

  nextNonce(): Promise<number> {
    throw sendsLater('bitcoin');
  }

  broadcast(): Promise<BroadcastVerdict> {
    throw sendsLater('bitcoin');
  }

  receipt(): Promise<TransferReceipt | null> {
    throw sendsLater('bitcoin');
  }
}
