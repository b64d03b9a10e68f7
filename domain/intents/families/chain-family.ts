// The chain-family interface of the Intents API (issue 32 §1): what the service needs of a chain
// family to sign and send an agent's transfer without ever showing it the key. A family derives
// addresses from public keys, reads balances, builds a transfer from the request (fetching what
// the chain decides: coins and fee rate, a recent blockhash …), has it signed through a callback
// that reaches the KMS, and broadcasts and tracks the signed bytes. Amounts are always in the
// family's smallest unit (sat, lamport, wei). Adding a family = one folder implementing this + its
// chains rows (`family` column) + its key curve in the KMS. EVM implements it too (evm/evm-family.ts):
// its broadcasts go through it, while its Intents transactions keep their own stages on top
// (per-sender nonce allocation, simulation, approvals: transactions/transaction-commands.ts).
//
// Signing goes through `PayloadSigner`: the family hands over exactly what its curve signs
// (secp256k1: a 32-byte digest, answered as 64-byte compact r‖s, low-S; ed25519: the message
// bytes, answered as the 64-byte signature). The private key never reaches family code.

/** The spec's chain families (the CHECK of signing_keys.chain). */
export type FamilyName = 'ethereum' | 'bitcoin' | 'solana' | 'xrp' | 'cardano' | 'tron';
export type Curve = 'secp256k1' | 'ed25519';

/** One network of a family, as its chains row (and the operator's endpoint override) describe it. */
export type FamilyNetwork = {
  /** chains.name, e.g. `bitcoin-regtest`, `solana-localnet`. */
  name: string;
  /** chains.chain_id: for non-EVM families a fixed synthetic id (see the seeds in the migration). */
  chainId: number;
  /** The family's own word for the network: bitcoin mainnet|testnet|regtest; solana mainnet-beta|devnet|testnet|localnet. */
  network: string;
  /** The node's endpoint (JSON-RPC URL; may carry credentials: never log it). */
  rpcUrl: string;
  /** Confirmations after which a transaction counts as confirmed. */
  confirmations: number;
};

/**
 * Signs `payload` with the agent's key in the KMS (see the header for what each curve gets).
 * `recoverable`, where the signer has it (the KMS-backed secp256k1 signer): the same signature
 * with its recovery id, which the KMS answers for a signature valid for the key (pkcs11 checks the
 * verification equation, the local backend signs with libsecp256k1), so a family that needs the id
 * (Tron) is spared trying recoveries.
 */
export type PayloadSigner = ((payload: Uint8Array) => Promise<Uint8Array>) & {
  recoverable?: (digest: Uint8Array) => Promise<{ signature: Uint8Array; recovery: 0 | 1 }>;
};

/** The sender: its public key (secp256k1: 33-byte compressed; ed25519: 32 bytes) and address. */
export type FamilySender = { publicKey: Uint8Array; address: string };

/** A transfer as the agent asked for it, amounts in the smallest unit. */
export type TransferIntent = {
  to: string;
  amount: bigint;
  /** Bitcoin: sat/vB; absent → the node's estimate within the family's floor and cap. */
  feeRateSatPerVbyte?: number;
  /** Solana SPL: the token's mint (amount then in the token's base units) and its decimals. */
  tokenMint?: string;
  tokenDecimals?: number;
  /** Solana SPL: create the recipient's associated token account when it does not exist. */
  createRecipientTokenAccount?: boolean;
  /** Solana: micro-lamports per compute unit (priority fee). */
  computeUnitPrice?: bigint;
  /** Tron TRC-20: the most TRX (in sun) the call may burn for energy (`fee_limit_sun`); absent → the family's default. */
  feeLimitSun?: bigint;
  /** XRP: the Payment's DestinationTag (uint32) and a text memo. */
  destinationTag?: number;
  memo?: string;
  /** XRP: a transaction the agent provides whole (checked by the commands), completed and signed instead of a Payment. */
  xrplTxJson?: Record<string, unknown>;
  /** Cardano: seconds (slots) from the current slot until the transaction expires unlanded (`ttl`). */
  ttlSeconds?: number;
};

/** Coins (or accounts) other requests are spending right now: the family must not pick them. */
export type SpendContext = {
  reservedOutpoints: ReadonlySet<string>;
  /**
   * Sign-only: the bytes are the caller's to send, and nothing is reserved for them. A family may
   * then build from chain facts it read moments ago (Bitcoin: the address's listed coins, each
   * still checked unspent by the node) instead of reading them all again.
   */
  signOnly?: boolean;
};

/** Signed bytes, exactly as broadcast sends them, and what the row records. */
export type SignedTransfer = {
  /** Bitcoin: hex; Solana: base64 of the wire transaction. */
  raw: string;
  /** Bitcoin: txid; Solana: the base58 first signature. */
  txHash: string;
  /** The network fee paid, in the smallest native unit. */
  fee: bigint;
  /** Bitcoin: the outpoints (`txid:vout`) the transaction spends, to reserve in the same statement that records it. */
  spends: string[];
  /** Family facts kept with the row (Bitcoin: change, vsize, fee rate; Solana: blockhash, last valid block height). */
  details: Record<string, string | number | boolean | null>;
};

/** 'sent' also when the node already had the bytes; `permanent` when the node will never take them. */
export type BroadcastVerdict = { sent: true } | { sent: false; permanent: boolean; reason: string };

/**
 * Where signed bytes stand on the chain. `expired`: the bytes can no longer be taken (Solana: the
 * blockhash passed; Tron: the expiration) and the network never saw them. `failed` with
 * `neverOnChain`: it can never be on chain (XRP: past its LastLedgerSequence; Cardano: its TTL
 * passed): what it reserved is given back.
 */
export type TransferStatus =
  | { state: 'unknown' | 'pending' | 'expired' }
  | { state: 'confirmed'; confirmations: number; block: bigint | null }
  | { state: 'failed'; reason: string; block: bigint | null; neverOnChain?: boolean };

export interface ChainFamily {
  readonly family: FamilyName;
  readonly curve: Curve;
  /** The native unit: BTC (8 decimals, sat), SOL (9, lamport). */
  readonly unit: { symbol: string; decimals: number; smallest: string };
  /**
   * What the broadcast workflow does with an `expired` transfer: 'resign' (Solana, the default:
   * the same transfer built again, signed once more and sent) or 'fail' (Tron: the row ends
   * failed and gives back its day's reservation; nothing is signed again).
   */
  readonly onExpired?: 'resign' | 'fail';
  /** The sender's address on `net` from its public key. */
  addressOf(publicKey: Uint8Array, net: FamilyNetwork): string;
  /** Whether `address` is a valid destination on `net` (a mainnet address on regtest is not). */
  isAddress(address: string, net: FamilyNetwork): boolean;
  /** Native balance in the smallest unit (confirmed, as the node reports it). */
  balance(net: FamilyNetwork, address: string): Promise<bigint>;
  /**
   * Builds the transfer from the chain's current facts and has it signed once through `sign`:
   * 4xx problems for what can never go (insufficient funds, an invalid destination, a fee rate
   * above the cap); ChainUnavailable-style errors while the node cannot be reached.
   */
  signTransfer(net: FamilyNetwork, from: FamilySender, intent: TransferIntent, spend: SpendContext, sign: PayloadSigner): Promise<SignedTransfer>;
  /** Sends the signed bytes; throws while the node cannot be reached (the caller retries). */
  broadcast(net: FamilyNetwork, raw: string): Promise<BroadcastVerdict>;
  /** Where the transaction stands. */
  status(net: FamilyNetwork, txHash: string, details: SignedTransfer['details']): Promise<TransferStatus>;
}
