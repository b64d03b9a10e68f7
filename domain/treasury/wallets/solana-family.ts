// The Solana family of treasury wallets: one Ed25519 key per wallet (the 32-byte seed is what is
// sealed), its base58 address the same on every Solana network; the public key recorded as 0x-hex
// of its 32 bytes, as agents' Solana signing keys are. Export gives the base58 of the 64-byte
// secret key (seed ‖ public key), what Phantom and Solflare import and what solana-keygen's JSON
// keypair file holds as a byte array, and the seed's 0x-hex. Balances (lamports) come from the
// Intents API's Solana family. Sends come later (the send path is nonce-shaped; Solana's is a
// recent blockhash).
import type { EntityManager } from '@mikro-orm/postgresql';
import { ed25519 } from '@noble/curves/ed25519';
import { toHex } from 'viem';
import { base58Encode } from '../../intents/families/solana/base58.ts';
import { solanaAddressOf } from '../../intents/families/solana/solana-address.ts';
import type { ChainFamilies } from '../../intents/families/family-registry.ts';
import { withChainProblems } from '../../intents/transactions/chain-problems.ts';
import type { BroadcastVerdict, ExportedKey, KeyPair, SignedTransfer, TransferReceipt, WalletChainFamily, WalletNetwork } from './chain-families.ts';
import { familyWalletNetwork, noTokens, nodeOf, sendsLater } from './family-wallet-networks.ts';

export class SolanaWalletFamily implements WalletChainFamily {
  readonly family = 'solana' as const;
  readonly curve = 'ed25519' as const;
  /** Against a misplaced decimal point, should sends come: 100,000 SOL per transfer. */
  readonly sanityCap = 100_000n * 1_000_000_000n;
  readonly sanityCapLabel = '100,000 SOL';
  readonly decimals = 9;
  readonly sends = false;
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

  destination(): string {
    throw sendsLater('solana');
  }

  async balance(net: WalletNetwork, address: string, tokens: string[]) {
    noTokens('solana', tokens);
    const node = nodeOf(net);
    const native = await withChainProblems(() => this.chains.of('solana').balance(node, address));
    return { native, tokens: [] };
  }

  prepareTransfer(): Promise<{ sign: (privateKey: Uint8Array, nonce: number) => SignedTransfer }> {
    throw sendsLater('solana');
  }

  nextNonce(): Promise<number> {
    throw sendsLater('solana');
  }

  broadcast(): Promise<BroadcastVerdict> {
    throw sendsLater('solana');
  }

  receipt(): Promise<TransferReceipt | null> {
    throw sendsLater('solana');
  }
}
