// The Tron family of treasury wallets: one secp256k1 key per wallet, made and sealed here like the
// EVM and Bitcoin families', its base58check T… address the same on every Tron network; the public
// key recorded as 0x-hex of the 65-byte uncompressed point, as agents' Tron signing keys are.
// Export gives the key's hex (without 0x: what TronLink imports) and its 0x-hex. Balances and TRX
// sends go through the Intents API's Tron family (a TransferContract on the node's reference
// block, signed with the unsealed key, broadcast, followed by transaction info). Tron has no
// account nonce: the row's `nonce` is the service's per-sender sequence. A transfer the network
// never took ends failed once the head block passes its expiration (read from the signed bytes);
// nothing is signed again.
import type { EntityManager } from '@mikro-orm/postgresql';
import { secp256k1 } from '@noble/curves/secp256k1';
import { toHex } from 'viem';
import { isTronAddress, tronAddressOf } from '../../intents/families/tron/tron-address.ts';
import { invalidField } from '../../errors.ts';
import type { ChainFamilies } from '../../intents/families/family-registry.ts';
import { withChainProblems } from '../../intents/transactions/chain-problems.ts';
import type { BroadcastVerdict, ExportedKey, KeyPair, SignedTransfer, TransferReceipt, TransferRequest, WalletChainFamily, WalletNetwork } from './chain-families.ts';
import { broadcastThrough, familyWalletNetwork, noTokens, nodeOf, receiptOf, refuseEvmFields } from './family-wallet-networks.ts';

/** The expiration the signed bytes carry (raw_data.expiration), for the receipt's "expired unseen". */
function expirationOf(signedTx: string): number | null {
  try {
    const e = (JSON.parse(signedTx) as { raw_data?: { expiration?: unknown } }).raw_data?.expiration;
    return typeof e === 'number' ? e : null;
  } catch {
    return null;
  }
}

export class TronWalletFamily implements WalletChainFamily {
  readonly family = 'tron' as const;
  readonly curve = 'secp256k1' as const;
  /** Against a misplaced decimal point: 10,000,000 TRX per transfer. */
  readonly sanityCap = 10_000_000n * 1_000_000n;
  readonly sanityCapLabel = '10,000,000 TRX';
  readonly decimals = 6;
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
    const pub = secp256k1.getPublicKey(privateKey, false);
    return { publicKey: toHex(pub), address: tronAddressOf(pub) };
  }

  exportKey(privateKey: Uint8Array): ExportedKey {
    const hex = toHex(privateKey);
    return { hex, importable: hex.slice(2), format: 'hex' };
  }

  network(em: EntityManager, raw: string): Promise<WalletNetwork> {
    return familyWalletNetwork(this.chains, em, raw, 'tron');
  }

  addressOn(_net: WalletNetwork, wallet: { address: string }): string {
    return wallet.address;
  }

  destination(_net: WalletNetwork, raw: string): string {
    const to = raw.trim();
    if (!isTronAddress(to)) throw invalidField('to', 'must be a Tron address (base58check, T…)');
    return to;
  }

  async balance(net: WalletNetwork, address: string, tokens: string[]) {
    noTokens('tron', tokens);
    const native = await withChainProblems(() => this.chains.of('tron').balance(nodeOf(net), address));
    return { native, tokens: [] };
  }

  /** The reference block and the funds check come when signing (the family builds and signs in one step). */
  async prepareTransfer(net: WalletNetwork, from: string, req: TransferRequest) {
    refuseEvmFields('tron', req);
    const node = nodeOf(net);
    const family = this.chains.of('tron');
    const sign = async (privateKey: Uint8Array, nonce: number): Promise<SignedTransfer> => {
      const publicKey = secp256k1.getPublicKey(privateKey, true);
      const signed = await withChainProblems(() => family.signTransfer(node, { publicKey, address: from }, { to: req.to, amount: req.value }, { reservedOutpoints: new Set() },
        async (digest) => secp256k1.sign(digest, privateKey, { lowS: true }).toCompactRawBytes()));
      return { signedTx: signed.raw, txHash: signed.txHash, nonce };
    };
    return { sign };
  }

  async nextNonce(): Promise<number> {
    return 0;
  }

  broadcast(net: WalletNetwork, t: { signedTx: string }): Promise<BroadcastVerdict> {
    return broadcastThrough(this.chains.of('tron'), nodeOf(net), t.signedTx);
  }

  async receipt(net: WalletNetwork, t: { signedTx: string; txHash: string }): Promise<TransferReceipt | null> {
    const st = await this.chains.of('tron').status(nodeOf(net), t.txHash, { expiration: expirationOf(t.signedTx) });
    if (st.state === 'expired') return { success: false, blockNumber: null, reason: 'Expired unseen: the network never took the transaction before its expiration; nothing moved; send again' };
    return receiptOf(st);
  }
}
