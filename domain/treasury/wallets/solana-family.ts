// The Solana family of treasury wallets: one Ed25519 key per wallet (the 32-byte seed is what is
// sealed), its base58 address the same on every Solana network; the public key recorded as 0x-hex
// of its 32 bytes, as agents' Solana signing keys are. Export gives the base58 of the 64-byte
// secret key (seed ‖ public key), what Phantom and Solflare import and what solana-keygen's JSON
// keypair file holds as a byte array, and the seed's 0x-hex. Balances and SOL sends go through the
// Intents API's Solana family (a transfer on a recent blockhash, signed with the unsealed seed,
// sent with preflight, confirmed by signature status). Solana has no account nonce: the row's
// `nonce` is the service's per-sender sequence. The treasury row keeps no blockhash expiry, so a
// transfer the network never took stays pending until the broadcast gives up (unconfirmed).
import type { EntityManager } from '@mikro-orm/postgresql';
import { ed25519 } from '@noble/curves/ed25519';
import { toHex } from 'viem';
import { base58Encode } from '../../intents/families/solana/base58.ts';
import { isSolanaAddress, solanaAddressOf } from '../../intents/families/solana/solana-address.ts';
import { invalidField } from '../../errors.ts';
import type { ChainFamilies } from '../../intents/families/family-registry.ts';
import { withChainProblems } from '../../intents/transactions/chain-problems.ts';
import type { BroadcastVerdict, ExportedKey, KeyPair, SignedTransfer, TransferReceipt, TransferRequest, WalletChainFamily, WalletNetwork } from './chain-families.ts';
import { broadcastThrough, familyWalletNetwork, noTokens, nodeOf, receiptOf, refuseEvmFields } from './family-wallet-networks.ts';

export class SolanaWalletFamily implements WalletChainFamily {
  readonly family = 'solana' as const;
  readonly curve = 'ed25519' as const;
  /** Against a misplaced decimal point: 100,000 SOL per transfer. */
  readonly sanityCap = 100_000n * 1_000_000_000n;
  readonly sanityCapLabel = '100,000 SOL';
  readonly decimals = 9;
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
    return { publicKey: toHex(pub), address: solanaAddressOf(pub) };
  }

  exportKey(privateKey: Uint8Array): ExportedKey {
    const keypair = new Uint8Array(64);
    keypair.set(privateKey, 0);
    keypair.set(ed25519.getPublicKey(privateKey), 32);
    try {
      return { hex: toHex(privateKey), importable: base58Encode(keypair), format: 'base58_keypair' };
    } finally {
      keypair.fill(0);
    }
  }

  network(em: EntityManager, raw: string): Promise<WalletNetwork> {
    return familyWalletNetwork(this.chains, em, raw, 'solana');
  }

  addressOn(_net: WalletNetwork, wallet: { address: string }): string {
    return wallet.address;
  }

  /** Base58 of 32 bytes, as given (base58 is case-sensitive). */
  destination(_net: WalletNetwork, raw: string): string {
    const to = raw.trim();
    if (!isSolanaAddress(to)) throw invalidField('to', 'must be a Solana address (base58 of 32 bytes)');
    return to;
  }

  async balance(net: WalletNetwork, address: string, tokens: string[]) {
    noTokens('solana', tokens);
    const node = nodeOf(net);
    const native = await withChainProblems(() => this.chains.of('solana').balance(node, address));
    return { native, tokens: [] };
  }

  /** The blockhash and the funds check come when signing (the family builds and signs in one step). */
  async prepareTransfer(net: WalletNetwork, from: string, req: TransferRequest) {
    refuseEvmFields('solana', req);
    const node = nodeOf(net);
    const family = this.chains.of('solana');
    const sign = async (privateKey: Uint8Array, nonce: number): Promise<SignedTransfer> => {
      const publicKey = ed25519.getPublicKey(privateKey);
      const signed = await withChainProblems(() => family.signTransfer(node, { publicKey, address: from }, { to: req.to, amount: req.value }, { reservedOutpoints: new Set() },
        async (message) => ed25519.sign(message, privateKey)));
      return { signedTx: signed.raw, txHash: signed.txHash, nonce };
    };
    return { sign };
  }

  async nextNonce(): Promise<number> {
    return 0;
  }

  broadcast(net: WalletNetwork, t: { signedTx: string }): Promise<BroadcastVerdict> {
    return broadcastThrough(this.chains.of('solana'), nodeOf(net), t.signedTx);
  }

  async receipt(net: WalletNetwork, t: { txHash: string }): Promise<TransferReceipt | null> {
    return receiptOf(await this.chains.of('solana').status(nodeOf(net), t.txHash, {}));
  }
}
