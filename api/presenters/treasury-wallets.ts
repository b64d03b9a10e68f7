// Treasury wallets (reference TreasuryWalletResponse, TreasuryWalletListResponse,
// TreasuryWalletExportResponse, TreasuryWalletBalanceResponse, TreasuryWalletSendResponse).
// A wallet's record is public: chain family, curve, public key, address and state; no presenter
// carries where its key is sealed. Only TreasuryWalletExport carries a private key, and only for
// POST …/export (X-Auth-Confirm, audited).
import { z } from 'zod';
import { formatUnits } from 'viem';
import { shape, timestamp, uuid, isoAlways, isoOrOmit } from './registry.ts';
import type { WalletRow } from '../../domain/treasury/wallets/wallet-repository.ts';
import { addressesOf } from '../../domain/intents/signing-keys/key-families.ts';
import type { ExportedWallet, WalletBalance } from '../../domain/treasury/wallets/wallet-commands.ts';
import type { TransferRow } from '../../domain/treasury/wallets/transfer-repository.ts';

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
/** EIP-55 (ethereum), P2WPKH bech32 (bitcoin: mainnet's on the record), base58 (solana). */
const address = z.string().min(26).max(90);

export const TreasuryWalletSchema = shape('TreasuryWallet', z.object({
  id: uuid,
  /** The chain family: `ethereum` serves every EVM chain (one address on all of them); `bitcoin` and `solana` all their networks. */
  chain: z.string(),
  /** secp256k1 (ethereum, bitcoin) or ed25519 (solana). */
  curve: z.string(),
  /** 0x-hex of the 65-byte uncompressed public key (secp256k1), or of the 32-byte Ed25519 key. */
  public_key_hex: z.string().regex(/^0x[0-9a-f]+$/),
  /** Bitcoin: the mainnet P2WPKH address (bc1q…); see `addresses` for the others. */
  address,
  /** The wallet's address on each network of its family, by chain name (Bitcoin's differ: bc1…, tb1…, bcrt1…). */
  addresses: z.record(z.string(), z.string()),
  is_active: z.boolean(),
  created_at: timestamp,
  /** When the wallet stopped sending (rotated out or deactivated); omitted while active. */
  deactivated_at: timestamp.optional(),
  /** Why it stopped: `rotation` or `deactivation`; omitted while active. */
  retired_by: z.enum(['rotation', 'deactivation']).optional(),
}), "A treasury wallet: public facts only");

export const TreasuryWalletListSchema = shape('TreasuryWalletList', z.object({ wallets: z.array(TreasuryWalletSchema) }),
  "The caller's treasury wallets, newest first");

export const TreasuryWalletExportSchema = shape('TreasuryWalletExport', z.object({
  chain: z.string(),
  address,
  /** The 32-byte private key, 0x-hex (secp256k1 scalar, or the Ed25519 seed). Shown once; handle with extreme care. */
  private_key_hex: z.string().regex(/^0x[0-9a-f]{64}$/),
  /** The key as the family's wallets import it: the 0x-hex (ethereum), WIF compressed mainnet (bitcoin), base58 of the 64-byte secret key (solana), CIP-5 bech32 ed25519_sk1… (cardano). */
  private_key: z.string(),
  /** hex, wif, base58_keypair (solana) or bech32 (cardano: CIP-5 ed25519_sk1…). */
  private_key_format: z.enum(['hex', 'wif', 'base58_keypair', 'bech32']),
  wallet_id: uuid,
  is_active: z.boolean(),
}), 'An exported treasury wallet key (X-Auth-Confirm; audited as treasury_wallet.export)');

export const TreasuryWalletBalanceSchema = shape('TreasuryWalletBalance', z.object({
  /** The network asked for (e.g. base, bitcoin-regtest), not only the family. */
  chain: z.string(),
  /** The wallet's address on that network. */
  address,
  /** balance_wei: in the smallest unit (wei, sat, lamport); balance_display in the native unit. */
  native: z.object({ symbol: z.string(), balance_wei: z.string(), balance_display: z.string() }),
  tokens: z.array(z.object({ contract_address: evmAddress, balance_raw: z.string() })),
}), 'Native and token balances of a treasury wallet on one network');

export const TreasuryWalletSendSchema = shape('TreasuryWalletSend', z.object({
  /** The transfer's id (its broadcast is the workflow treasury-transfer:<id>). */
  id: uuid,
  /** EVM: 0x-hex; Bitcoin: the txid (hex); Solana: the base58 signature. */
  tx_hash: z.string(),
  /** The wallet's address on the network (Bitcoin: that network's P2WPKH). */
  from: address,
  to: address,
  /** In the smallest unit: wei, sat or lamport. */
  value_wei: z.string(),
  /** The network it was sent on. */
  chain: z.string(),
  chain_id: z.number().int(),
  /** EVM: the account nonce; Bitcoin and Solana (no nonce on chain): the wallet's transfer number on the network. */
  nonce: z.number().int(),
  /** signed (broadcast under way), broadcast, confirmed, failed (refused, or mined but reverted) or unconfirmed. */
  status: z.enum(['signed', 'broadcast', 'confirmed', 'failed', 'unconfirmed']),
  error_message: z.string().optional(),
  created_at: timestamp,
}), 'A transfer from a treasury wallet');

export function presentTreasuryWallet(w: WalletRow): z.output<typeof TreasuryWalletSchema> {
  return {
    id: w.id, chain: w.chain, curve: w.curve, public_key_hex: w.public_key, address: w.address, addresses: addressesOf(w), is_active: w.is_active,
    created_at: isoAlways(w.created_at), deactivated_at: isoOrOmit(w.deactivated_at), retired_by: w.retired_by ?? undefined,
  };
}

export function presentTreasuryWalletList(ws: WalletRow[]): z.output<typeof TreasuryWalletListSchema> {
  return { wallets: ws.map(presentTreasuryWallet) };
}

export function presentTreasuryWalletExport(e: ExportedWallet): z.output<typeof TreasuryWalletExportSchema> {
  return {
    chain: e.wallet.chain, address: e.wallet.address, private_key_hex: e.privateKey.hex, private_key: e.privateKey.importable,
    private_key_format: e.privateKey.format, wallet_id: e.wallet.id, is_active: e.wallet.is_active,
  };
}

export function presentTreasuryWalletBalance(b: WalletBalance): z.output<typeof TreasuryWalletBalanceSchema> {
  return {
    chain: b.network.name, address: b.address,
    native: { symbol: b.symbol, balance_wei: b.native.toString(), balance_display: formatUnits(b.native, b.decimals) },
    tokens: b.tokens.map((t) => ({ contract_address: t.contract, balance_raw: t.raw.toString() })),
  };
}

export function presentTreasuryTransfer(t: TransferRow): z.output<typeof TreasuryWalletSendSchema> {
  return {
    id: t.id, tx_hash: t.tx_hash, from: t.from_address, to: t.to_address, value_wei: t.value_wei.toString(), chain: t.chain, chain_id: t.chain_id,
    nonce: t.nonce, status: t.status, error_message: t.error_message ?? undefined, created_at: isoAlways(t.created_at),
  };
}
