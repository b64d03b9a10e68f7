// The XRP Ledger family of treasury wallets: one secp256k1 key per wallet, made and sealed here
// like the EVM and Bitcoin families', its classic address (r…) the same on every XRP network; the
// public key recorded as 0x-hex of the 65-byte uncompressed point, as agents' XRP signing keys
// record it. Export gives the key's 32 bytes as hex (uppercase, what xrpl.js' `new Wallet(publicKey,
// "00" + key)` and rippled's `wallet_propose`-style tools take; a family seed cannot be derived
// from a key) and its 0x-hex. Balances and sends go through the Intents API's XRP family (a Payment
// with the server's Sequence, fee within the cap and LastLedgerSequence, signed with the unsealed
// key). The row's `nonce` is the service's per-sender number; the XRP Sequence is read from the
// server, skipping the sequences the wallet's unsettled transfers hold (read from their bytes).
import type { EntityManager } from '@mikro-orm/postgresql';
import { secp256k1 } from '@noble/curves/secp256k1';
import { toHex } from 'viem';
import { decode } from 'xrpl';
import { invalidField } from '../../errors.ts';
import type { ChainFamilies } from '../../intents/families/family-registry.ts';
import { isXrpAddress, xrpAddressOf } from '../../intents/families/xrp/xrp-signing.ts';
import { sequenceKey } from '../../intents/families/xrp/xrp-transfer.ts';
import { withChainProblems } from '../../intents/transactions/chain-problems.ts';
import type {
  BroadcastVerdict, ExportedKey, KeyPair, OpenTransfer, SignedTransfer, TransferReceipt, TransferRequest, WalletChainFamily, WalletNetwork,
} from './chain-families.ts';
import { broadcastThrough, familyWalletNetwork, noTokens, nodeOf, receiptOf, refuseEvmFields } from './family-wallet-networks.ts';

/** What the tracking needs of signed bytes: the LastLedgerSequence (after it, never validated). */
const factsOf = (blob: string) => {
  const tx = decode(blob) as { Account?: string; Sequence?: number; LastLedgerSequence?: number };
  return { account: tx.Account ?? '', sequence: tx.Sequence ?? 0, lastLedgerSequence: tx.LastLedgerSequence ?? null };
};

export class XrpWalletFamily implements WalletChainFamily {
  readonly family = 'xrp' as const;
  readonly curve = 'secp256k1' as const;
  /** Against a misplaced decimal point: 1,000,000 XRP per transfer. */
  readonly sanityCap = 1_000_000n * 1_000_000n;
  readonly sanityCapLabel = '1,000,000 XRP';
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
    return { publicKey: toHex(secp256k1.getPublicKey(privateKey, false)), address: xrpAddressOf(secp256k1.getPublicKey(privateKey, true)) };
  }

  exportKey(privateKey: Uint8Array): ExportedKey {
    return { hex: toHex(privateKey), importable: Buffer.from(privateKey).toString('hex').toUpperCase(), format: 'hex' };
  }

  network(em: EntityManager, raw: string): Promise<WalletNetwork> {
    return familyWalletNetwork(this.chains, em, raw, 'xrp');
  }

  addressOn(_net: WalletNetwork, wallet: { address: string }): string {
    return wallet.address;
  }

  /** A classic address, as given (base58 is case-sensitive); a destination tag is not offered for treasury sends. */
  destination(_net: WalletNetwork, raw: string): string {
    const to = raw.trim();
    if (!isXrpAddress(to)) throw invalidField('to', 'must be a classic XRP Ledger address (r…)');
    return to;
  }

  async balance(net: WalletNetwork, address: string, tokens: string[]) {
    noTokens('xrp', tokens);
    const node = nodeOf(net);
    const native = await withChainProblems(() => this.chains.of('xrp').balance(node, address));
    return { native, tokens: [] };
  }

  /** Sequence, fee and the funds and destination checks come when signing (under the wallet's lock, knowing the open transfers). */
  async prepareTransfer(net: WalletNetwork, from: string, req: TransferRequest) {
    refuseEvmFields('xrp', req);
    const node = nodeOf(net);
    const family = this.chains.of('xrp');
    const sign = async (privateKey: Uint8Array, nonce: number, open: OpenTransfer[]): Promise<SignedTransfer> => {
      const publicKey = secp256k1.getPublicKey(privateKey, true);
      const reservedOutpoints = new Set(open.map((t) => factsOf(t.signedTx)).map((f) => sequenceKey(f.account, f.sequence)));
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
    return broadcastThrough(this.chains.of('xrp'), nodeOf(net), t.signedTx);
  }

  async receipt(net: WalletNetwork, t: { signedTx: string; txHash: string }): Promise<TransferReceipt | null> {
    return receiptOf(await this.chains.of('xrp').status(nodeOf(net), t.txHash, { lastLedgerSequence: factsOf(t.signedTx).lastLedgerSequence }));
  }
}
