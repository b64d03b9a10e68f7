// The chain families a treasury wallet can belong to, behind one small interface, so that each
// family joins as its Intents issue lands (Bitcoin, Solana …) without touching the commands:
// a family makes key pairs, derives its public facts and address, formats a key for export, and
// moves funds (balance, a signed transfer, its broadcast and receipt). One wallet serves every
// network of its family: an EVM address is the same on ethereum, base or any EVM chain; a Bitcoin
// wallet's one key has a P2WPKH address per network (bc1… on mainnet, the record's; bcrt1… on
// regtest). EVM is evm-family.ts; Bitcoin and Solana (bitcoin-family.ts, solana-family.ts) use
// the Intents API's chain libraries. The send path is the EVM one: a transfer is prepared, then
// signed under the wallet's row lock with a number the row keeps (`nonce`): for EVM the account
// nonce the chain orders by; for Bitcoin and Solana, which have none, a per-sender sequence the
// service allocates (`sequence: 'service'`), and the open transfers' bytes are handed to the
// signer so a Bitcoin send never spends a coin an earlier one still spends.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FamilyNetwork } from '../../intents/families/chain-family.ts';

/** The spec's chain families (the CHECK of treasury_wallets.chain). */
export type WalletFamilyName = 'ethereum' | 'bitcoin' | 'solana' | 'xrp' | 'cardano' | 'tron';

/**
 * A network of a family a transfer or balance is on (a row of the chains table); `node` is the
 * non-EVM families' view of it (the Intents API's FamilyNetwork: network word, node endpoint).
 */
export type WalletNetwork = { name: string; chainId: number; nativeCurrency: string; node?: FamilyNetwork };

/** A private key as export shows it: 0x-hex of the 32 bytes, and the form wallets of the family import. */
export type ExportedKey = { hex: string; importable: string; format: 'hex' | 'wif' | 'base58_keypair' | 'bech32' };

export type KeyPair = { privateKey: Uint8Array; publicKey: string; address: string };

/** A transfer as the family signs it; amounts in the family's smallest unit. */
export type TransferRequest = { to: string; value: bigint; data?: string; gasLimit?: bigint };

/** The signed bytes of the sender's transfers on the network that are signed or sent but not yet settled. */
export type OpenTransfer = { signedTx: string };

/** The signed bytes of a transfer and what identifies it on the chain. */
export type SignedTransfer = { signedTx: string; txHash: string; nonce: number };

/** `reason`: why it failed when it did not revert (a Bitcoin input spent elsewhere, a Solana blockhash that expired unseen). */
export type TransferReceipt = { success: boolean; blockNumber: bigint | null; reason?: string };

/** 'sent' also when the node already had the bytes; a refusal for good carries the node's words. */
export type BroadcastVerdict = { sent: true } | { sent: false; reason: string };

export interface WalletChainFamily {
  readonly family: WalletFamilyName;
  readonly curve: 'secp256k1' | 'ed25519';
  /** The largest transfer accepted, in the smallest unit: a sanity cap against a misplaced decimal point. */
  readonly sanityCap: bigint;
  readonly sanityCapLabel: string;
  /** Decimals of the native unit (18 wei, 8 sat, 9 lamport). */
  readonly decimals: number;
  /** Where a transfer's `nonce` comes from: the chain's account nonce, or a per-sender sequence of the service. */
  readonly sequence: 'chain' | 'service';
  /** A fresh key pair; the caller zeroes privateKey once it is sealed. */
  generateKey(): KeyPair;
  /** The public key and address of a private key (checks a sealed key against its record). */
  keyFacts(privateKey: Uint8Array): { publicKey: string; address: string };
  /** The private key as the export shows it. */
  exportKey(privateKey: Uint8Array): ExportedKey;
  /** The network `raw` names (name or chain id), or a 400 naming `chain`. */
  network(em: EntityManager, raw: string): Promise<WalletNetwork>;
  /** The wallet's address on `net` (Bitcoin's differ per network; the record keeps mainnet's). */
  addressOn(net: WalletNetwork, wallet: { public_key: string; address: string }): string;
  /** A send's destination on `net` checked and normalized, or a 400 naming `to`. */
  destination(net: WalletNetwork, raw: string): string;
  /** Native balance in the smallest unit, and token balances for the contracts asked. */
  balance(net: WalletNetwork, address: string, tokens: string[]): Promise<{ native: bigint; tokens: { contract: string; raw: bigint }[] }>;
  /**
   * Checks the request against the chain (gas, fees, funds: a 4xx problem when it cannot go)
   * and returns a signer for a nonce: the family decides fees once, the caller allocates the nonce.
   * `from` is the wallet's address on `net`; `open` the sender's unsettled transfers there.
   */
  prepareTransfer(net: WalletNetwork, from: string, req: TransferRequest): Promise<{
    sign: (privateKey: Uint8Array, nonce: number, open: OpenTransfer[]) => Promise<SignedTransfer>;
  }>;
  /** The next nonce the network expects of `from`, counting its pending pool (0 where the service numbers transfers). */
  nextNonce(net: WalletNetwork, from: string): Promise<number>;
  /** Sends signed bytes: 'sent' (or already known), 'refused' for good; throws while unreachable. */
  broadcast(net: WalletNetwork, t: { signedTx: string; txHash: string }): Promise<BroadcastVerdict>;
  /** The receipt once settled (mined, failed for good), else null. */
  receipt(net: WalletNetwork, t: { signedTx: string; txHash: string }): Promise<TransferReceipt | null>;
}
