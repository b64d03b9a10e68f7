// What differs between the key families an agent's signing key can belong to (issue 32): the
// curve the KMS makes the key on, how the public key is written on the record, and the address.
//   ethereum: secp256k1; public_key the 65-byte uncompressed point; address EIP-55 (every EVM chain)
//   bitcoin:  secp256k1 (the same KMS keys as EVM); address P2WPKH bech32 on mainnet — each
//             network has its own (bcrt1… on regtest): addressesOf lists them
//   solana:   Ed25519 (KMS createEd25519Key); public_key the 32-byte key; address its base58
//   xrp:      secp256k1 (the same KMS keys as EVM); address the classic r… address of the
//             compressed key (the same on every XRP Ledger network)
//   tron:     secp256k1 (the same KMS keys as EVM); address base58check T… (every Tron network)
//   cardano:  Ed25519 (KMS createEd25519Key); address the enterprise address of the key's
//             blake2b-224 hash, addr1… on mainnet — addr_test1… on preprod and preview (addressesOf)
import { secp256k1 } from '@noble/curves/secp256k1';
import { ed25519 } from '@noble/curves/ed25519';
import { payments, networks } from 'bitcoinjs-lib';
import { PublicKey } from '@solana/web3.js';
import { toHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import type { Kms, SigningKeyRef } from '../../crypto/kms/kms.ts';
import { networksOf } from '../families/family-chains.ts';
import { tronAddressOf } from '../families/tron/tron-address.ts';
import { xrpAddressOf } from '../families/xrp/xrp-signing.ts';
import { enterpriseAddress } from '../families/cardano/cardano-address.ts';
import type { SigningChain } from './signing-chains.ts';

export type KeyFamily = {
  curve: 'secp256k1' | 'ed25519';
  /** A new key pair inside the KMS. */
  create(kms: Kms, label: string): Promise<{ ref: SigningKeyRef; publicKey: Buffer }>;
  /** The record's address of a public key as create returned it. */
  address(publicKey: Buffer): string;
  /** Whether an exported secret is the private key of the record's 0x-hex public key. */
  matches(secret: Buffer, publicKeyHex: string): boolean;
};

const compressed = (uncompressedHex: string): Buffer => Buffer.from(secp256k1.ProjectivePoint.fromHex(uncompressedHex.slice(2)).toRawBytes(true));

const BITCOIN_NETWORKS: Record<string, typeof networks.bitcoin> = { bitcoin: networks.bitcoin, 'bitcoin-testnet': networks.testnet, 'bitcoin-regtest': networks.regtest };

/** The P2WPKH address of a secp256k1 key (0x-hex, uncompressed) on a seeded Bitcoin network. */
export function bitcoinAddressOf(publicKeyHex: string, network: string): string {
  return payments.p2wpkh({ pubkey: compressed(publicKeyHex), network: BITCOIN_NETWORKS[network] ?? networks.bitcoin }).address!;
}

const secpMatches = (secret: Buffer, publicKeyHex: string) => toHex(secp256k1.getPublicKey(secret, false)) === publicKeyHex;

export const KEY_FAMILIES: Record<SigningChain, KeyFamily> = {
  ethereum: {
    curve: 'secp256k1',
    create: (kms, label) => kms.createSigningKey(label),
    address: (pub) => publicKeyToAddress(toHex(pub)),
    matches: secpMatches,
  },
  bitcoin: {
    curve: 'secp256k1',
    create: (kms, label) => kms.createSigningKey(label),
    address: (pub) => bitcoinAddressOf(toHex(pub), 'bitcoin'),
    matches: secpMatches,
  },
  solana: {
    curve: 'ed25519',
    create: (kms, label) => kms.createEd25519Key(label),
    address: (pub) => new PublicKey(pub).toBase58(),
    matches: (secret, publicKeyHex) => toHex(ed25519.getPublicKey(secret)) === publicKeyHex,
  },
  xrp: {
    curve: 'secp256k1',
    create: (kms, label) => kms.createSigningKey(label),
    address: (pub) => xrpAddressOf(compressed(toHex(pub))),
    matches: secpMatches,
  },
  tron: {
    curve: 'secp256k1',
    create: (kms, label) => kms.createSigningKey(label),
    address: (pub) => tronAddressOf(pub),
    matches: secpMatches,
  },
  cardano: {
    curve: 'ed25519',
    create: (kms, label) => kms.createEd25519Key(label),
    address: (pub) => enterpriseAddress(pub, 'mainnet'),
    matches: (secret, publicKeyHex) => toHex(ed25519.getPublicKey(secret)) === publicKeyHex,
  },
};

const CARDANO_NETWORKS: Record<string, string> = { cardano: 'mainnet', 'cardano-preprod': 'preprod', 'cardano-preview': 'preview' };

/** The enterprise address of an Ed25519 key (0x-hex) on a seeded Cardano network. */
export const cardanoAddressOf = (publicKeyHex: string, network: string): string =>
  enterpriseAddress(Buffer.from(publicKeyHex.slice(2), 'hex'), CARDANO_NETWORKS[network] ?? 'mainnet');

/** A key's address on each network of its family (Bitcoin's and Cardano's differ; EVM and Solana have one). */
export function addressesOf(k: { chain: string; public_key: string; address: string }): Record<string, string> {
  if (k.chain === 'cardano') return Object.fromEntries(networksOf('cardano').map((n) => [n, cardanoAddressOf(k.public_key, n)]));
  if (k.chain !== 'bitcoin') return { [k.chain]: k.address };
  return Object.fromEntries(networksOf('bitcoin').map((n) => [n, bitcoinAddressOf(k.public_key, n)]));
}
